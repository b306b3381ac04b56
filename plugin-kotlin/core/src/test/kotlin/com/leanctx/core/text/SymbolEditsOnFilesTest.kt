/**
 * The symbol-body edits through the plain-file store, as the contract double serves
 * them and as the IDE's Document store places them: exact bytes after replace and
 * insert, UTF-16 ranges on non-ASCII lines, CRLF and BOM kept, the file's mode kept,
 * no temp file left, and the path jail.
 */
package com.leanctx.core.text

import com.leanctx.core.files.FileDocumentStore
import com.leanctx.core.wire.EditRequest
import com.leanctx.core.wire.ErrorCode
import com.leanctx.core.wire.LeanCtxException
import com.leanctx.core.wire.Position
import com.leanctx.core.wire.Range
import org.junit.jupiter.api.Assertions.assertArrayEquals
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import org.junit.jupiter.api.io.TempDir
import java.nio.file.Files
import java.nio.file.Path
import java.nio.file.attribute.PosixFilePermissions

class SymbolEditsOnFilesTest {
    @TempDir
    lateinit var root: Path

    private fun edits() = TextSymbolEdits(FileDocumentStore(ProjectPaths(root)))

    private fun file(name: String, content: String): Path =
        root.resolve(name).also { Files.createDirectories(it.parent); Files.writeString(it, content) }

    private fun range(l1: Int, c1: Int, l2: Int, c2: Int) = Range(Position(l1, c1), Position(l2, c2))

    private val source = "class Main {\n    // 😀 é\n    fun run() { println(\"old\") }\n}\n"

    @Test
    fun `replace writes exactly over the range and reports the new range`() {
        val f = file("src/Main.kt", source)
        val run = "    fun run() { println(\"old\") }"
        val r = edits().replaceSymbolBody(EditRequest("src/Main.kt", range(2, 4, 2, run.length), "fun run() { println(\"new\") }"))
        assertEquals("class Main {\n    // 😀 é\n    fun run() { println(\"new\") }\n}\n", Files.readString(f))
        assertEquals(true, r.applied)
        assertEquals(range(2, 4, 2, 32), r.newRange)
        assertEquals("fun run() { println(\"new\") }", r.editedText)
    }

    @Test
    fun `a range on a non-ASCII line is counted in UTF-16 units`() {
        val f = file("u.kt", "val s = \"😀é漢\"; fun target() = 1\n")
        // "val s = \"" is 9 units, 😀 2, é 1, 漢 1, "\"; " 3: `fun` starts at 16.
        val r = edits().replaceSymbolBody(EditRequest("u.kt", range(0, 16, 0, 32), "fun renamed() = 2"))
        assertEquals("val s = \"😀é漢\"; fun renamed() = 2\n", Files.readString(f))
        assertEquals(range(0, 16, 0, 33), r.newRange)
    }

    @Test
    fun `a multi-line replacement ends on its last line`() {
        file("m.kt", source)
        val r = edits().replaceSymbolBody(EditRequest("m.kt", range(2, 4, 2, 32), "fun run() {\n        go()\n    }"))
        assertEquals(range(2, 4, 4, 5), r.newRange)
    }

    @Test
    fun `insert before takes whole lines before the range's first line`() {
        val f = file("Main.kt", source)
        val r = edits().insertBeforeSymbol(EditRequest("Main.kt", range(2, 4, 2, 32), "    fun helper() = 42\n\n"))
        assertEquals("class Main {\n    // 😀 é\n    fun helper() = 42\n    fun run() { println(\"old\") }\n}\n", Files.readString(f))
        assertEquals(range(2, 0, 2, 21), r.newRange)
        assertEquals("    fun helper() = 42", r.editedText)
    }

    @Test
    fun `insert after takes whole lines after the range's last line`() {
        val f = file("Main.kt", source)
        val r = edits().insertAfterSymbol(EditRequest("Main.kt", range(2, 4, 2, 32), "    fun helper() = 42"))
        assertEquals("class Main {\n    // 😀 é\n    fun run() { println(\"old\") }\n    fun helper() = 42\n}\n", Files.readString(f))
        assertEquals(range(3, 0, 3, 21), r.newRange)
    }

    @Test
    fun `a range that ends at column 0 of the next line inserts after the line it really ends on`() {
        val f = file("Main.kt", source)
        edits().insertAfterSymbol(EditRequest("Main.kt", range(2, 0, 3, 0), "    fun helper() = 42"))
        assertEquals("class Main {\n    // 😀 é\n    fun run() { println(\"old\") }\n    fun helper() = 42\n}\n", Files.readString(f))
    }

    @Test
    fun `insert after a symbol that ends the file without a line break starts a new line`() {
        val f = file("end.kt", "fun a() = 1")
        val r = edits().insertAfterSymbol(EditRequest("end.kt", range(0, 0, 0, 11), "fun b() = 2\n"))
        assertEquals("fun a() = 1\nfun b() = 2", Files.readString(f))
        assertEquals(range(1, 0, 1, 11), r.newRange)
    }

    @Test
    fun `CRLF files stay CRLF and a BOM is kept outside the positions`() {
        val bom = byteArrayOf(0xEF.toByte(), 0xBB.toByte(), 0xBF.toByte())
        val f = root.resolve("w.kt")
        Files.write(f, bom + "fun a() = 1\r\nfun b() = 2\r\n".toByteArray())
        val r = edits().insertAfterSymbol(EditRequest("w.kt", range(0, 0, 0, 11), "fun c() {\n}"))
        assertArrayEquals(bom + "fun a() = 1\r\nfun c() {\r\n}\r\nfun b() = 2\r\n".toByteArray(), Files.readAllBytes(f))
        assertEquals("fun c() {\r\n}", r.editedText)
        assertEquals(range(1, 0, 2, 1), r.newRange)
        edits().replaceSymbolBody(EditRequest("w.kt", range(0, 0, 0, 3), "val"))
        assertArrayEquals(bom + "val a() = 1\r\nfun c() {\r\n}\r\nfun b() = 2\r\n".toByteArray(), Files.readAllBytes(f))
    }

    @Test
    fun `the file keeps its mode and no temp file is left behind`() {
        val f = file("x.sh", "echo a\n")
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rwxr-x---"))
        edits().replaceSymbolBody(EditRequest("x.sh", range(0, 5, 0, 6), "b"))
        assertEquals("echo b\n", Files.readString(f))
        assertEquals("rwxr-x---", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)))
        assertEquals(listOf("x.sh"), Files.list(root).map { it.fileName.toString() }.toList())
    }

    @Test
    fun `an out-of-range edit leaves the file untouched`() {
        val f = file("a.kt", "fun a() = 1\n")
        val e = assertThrows<LeanCtxException> { edits().replaceSymbolBody(EditRequest("a.kt", range(0, 0, 5, 0), "x")) }
        assertEquals(ErrorCode.POSITION_OUT_OF_RANGE, e.code)
        assertEquals("fun a() = 1\n", Files.readString(f))
    }

    @Test
    fun `paths outside the root, missing files and symlinks out of the root are FILE_NOT_FOUND`() {
        file("in.kt", "x\n")
        val outside = Files.createTempFile("leanctx-outside", ".kt")
        try {
            Files.createSymbolicLink(root.resolve("link.kt"), outside)
            for (p in listOf("../escape.kt", "missing.kt", "link.kt", outside.toString(), "src/../../x.kt", "")) {
                val e = assertThrows<LeanCtxException>(p) { edits().replaceSymbolBody(EditRequest(p, range(0, 0, 0, 0), "y")) }
                assertEquals(ErrorCode.FILE_NOT_FOUND, e.code, p)
            }
            // An absolute path inside the root is fine.
            edits().replaceSymbolBody(EditRequest(root.resolve("in.kt").toString(), range(0, 0, 0, 1), "y"))
            assertEquals("y\n", Files.readString(root.resolve("in.kt")))
        } finally {
            Files.delete(outside)
        }
    }

    @Test
    fun `a file that is not UTF-8 is refused, untouched`() {
        val f = root.resolve("latin1.txt")
        Files.write(f, byteArrayOf(0x63, 0xe9.toByte(), 0x0a))
        val e = assertThrows<LeanCtxException> { edits().replaceSymbolBody(EditRequest("latin1.txt", range(0, 0, 0, 1), "x")) }
        assertEquals(ErrorCode.INTERNAL, e.code)
        assertArrayEquals(byteArrayOf(0x63, 0xe9.toByte(), 0x0a), Files.readAllBytes(f))
    }

    @Test
    fun `wire paths are relative with slashes inside the root, absolute outside it`() {
        val paths = ProjectPaths(root)
        assertEquals("src/a/B.kt", paths.toWire(root.resolve("src").resolve("a").resolve("B.kt")))
        assertEquals("/opt/lib/X.kt", paths.toWire(Path.of("/opt/lib/X.kt")))
    }
}
