/**
 * The part of JetBrains' Plugin Verifier these stubs make checkable: the compiled
 * adapter (`com/leanctx/plugin` in this module's output) must not call a platform method
 * the stubs mark `@ApiStatus.OverrideOnly` (except `super.x()` from its own override),
 * nor use one marked `@ApiStatus.Internal`, `@ApiStatus.ScheduledForRemoval`,
 * `@ApiStatus.Experimental` or `@Deprecated`. The annotations are CLASS-retained, so
 * this reads class files (ASM), as the verifier does.
 */
package com.leanctx.idecheck

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.objectweb.asm.AnnotationVisitor
import org.objectweb.asm.ClassReader
import org.objectweb.asm.ClassVisitor
import org.objectweb.asm.MethodVisitor
import org.objectweb.asm.Opcodes
import java.nio.file.Files
import java.nio.file.Path

class ApiStatusCheckTest {
    private val classes = Path.of(System.getProperty("leanctx.classesDir") ?: error("leanctx.classesDir is not set (run through Maven)"))
    private val testClasses = Path.of(System.getProperty("leanctx.testClassesDir") ?: error("leanctx.testClassesDir is not set (run through Maven)"))
    private val index = ClassIndex(listOf(classes, testClasses))

    @Test
    fun `the adapter calls no OverrideOnly, Internal, removed, experimental or deprecated platform API`() {
        assertTrue(
            OVERRIDE_ONLY in index.platformAnnotations("com/intellij/refactoring/BaseRefactoringProcessor", "findUsages", "()[Lcom/intellij/usageView/UsageInfo;").orEmpty(),
            "the stubs lost BaseRefactoringProcessor.findUsages' @ApiStatus.OverrideOnly: this check would prove nothing",
        )
        val adapter = classFiles(classes.resolve("com/leanctx/plugin"))
        assertTrue(adapter.size >= 20, "only ${adapter.size} adapter classes found")
        assertEquals(emptyList<String>(), adapter.flatMap { violations(it) })
    }

    @Test
    fun `calls to OverrideOnly findUsages and preprocessUsages are caught`() {
        // A fixture compiled with the tests, not part of the adapter: what issue 19 found,
        // and a call the stubs let through before preprocessUsages got its annotation.
        val fixture = testClasses.resolve("com/leanctx/idecheck/OverrideOnlyCaller.class")
        val found = violations(fixture)
        assertEquals(2, found.size, found.toString())
        for (method in listOf("findUsages", "preprocessUsages")) {
            assertTrue(found.any { it.contains(".$method,") && it.contains("OverrideOnly") }, "$method not reported: $found")
        }
    }

    private fun violations(classFile: Path): List<String> {
        val out = ArrayList<String>()
        ClassReader(Files.readAllBytes(classFile)).accept(object : ClassVisitor(Opcodes.ASM9) {
            lateinit var self: String

            override fun visit(version: Int, access: Int, name: String, signature: String?, superName: String?, interfaces: Array<out String>?) {
                self = name
            }

            override fun visitMethod(access: Int, name: String, descriptor: String, signature: String?, exceptions: Array<out String>?): MethodVisitor {
                val caller = name
                val callerDescriptor = descriptor
                return object : MethodVisitor(Opcodes.ASM9) {
                    override fun visitMethodInsn(opcode: Int, owner: String, name: String, descriptor: String, isInterface: Boolean) {
                        // The owner may be the caller's own class (a processor subclass calling
                        // its inherited findUsages()): what counts is the platform declaration.
                        val annotations = index.platformAnnotations(owner, name, descriptor) ?: return
                        val superCallFromOverride = opcode == Opcodes.INVOKESPECIAL && name == caller && descriptor == callerDescriptor
                        if (OVERRIDE_ONLY in annotations && !superCallFromOverride) {
                            out.add("$self.$caller calls $owner.$name, which is @ApiStatus.OverrideOnly (implement it, never call it)")
                        }
                        for (forbidden in FORBIDDEN.filter { it in annotations }) out.add("$self.$caller uses $owner.$name, marked $forbidden")
                    }
                }
            }
        }, ClassReader.SKIP_FRAMES)
        return out
    }

    /**
     * Every class under [roots] with its supertypes and annotated methods; the stubs
     * (`com/intellij`, `org/jetbrains`) are the platform.
     */
    private class ClassIndex(roots: List<Path>) {
        private class Info(val platform: Boolean, val supers: List<String>, val annotations: Set<String>, val methods: Map<String, Set<String>>)

        private val byName: Map<String, Info> = roots.flatMap { classFiles(it) }.associate { file ->
            var name = ""
            val supers = ArrayList<String>()
            val classAnnotations = HashSet<String>()
            val methods = HashMap<String, MutableSet<String>>()
            ClassReader(Files.readAllBytes(file)).accept(object : ClassVisitor(Opcodes.ASM9) {
                override fun visit(version: Int, access: Int, n: String, signature: String?, superName: String?, interfaces: Array<out String>?) {
                    name = n
                    superName?.let(supers::add)
                    interfaces?.let { supers.addAll(it) }
                    if (access and Opcodes.ACC_DEPRECATED != 0) classAnnotations.add(DEPRECATED)
                }

                override fun visitAnnotation(descriptor: String, visible: Boolean): AnnotationVisitor? {
                    classAnnotations.add(descriptor)
                    return null
                }

                override fun visitMethod(access: Int, n: String, descriptor: String, signature: String?, exceptions: Array<out String>?): MethodVisitor {
                    val own = methods.getOrPut(n + descriptor) { HashSet() }
                    if (access and Opcodes.ACC_DEPRECATED != 0) own.add(DEPRECATED)
                    return object : MethodVisitor(Opcodes.ASM9) {
                        override fun visitAnnotation(d: String, visible: Boolean): AnnotationVisitor? {
                            own.add(d)
                            return null
                        }
                    }
                }
            }, ClassReader.SKIP_CODE)
            name to Info(name.startsWith("com/intellij/") || name.startsWith("org/jetbrains/"), supers, classAnnotations, methods)
        }

        /**
         * The annotations of the platform declaration a call to [owner].[name] reaches
         * first (the method where the walk up from [owner] finds it, with its class's
         * annotations), plus `@OverrideOnly` if anything it overrides carries it; null
         * when no platform class declares it: not platform API. Only `@OverrideOnly` is
         * inherited along the override chain: an override that is not itself marked
         * `@Deprecated`, `@Internal` or `@Experimental` is not (the platform's
         * `Project.getMessageBus` overrides a `ComponentManager.getMessageBus` that
         * newer forms deprecate).
         */
        fun platformAnnotations(owner: String, name: String, descriptor: String): Set<String>? {
            val queue = ArrayDeque(listOf(owner))
            val seen = HashSet<String>()
            var nearest: Set<String>? = null
            var overrideOnly = false
            while (queue.isNotEmpty()) {
                val type = queue.removeFirst()
                if (!seen.add(type)) continue
                val info = byName[type] ?: continue
                val declared = info.methods[name + descriptor]
                if (declared != null && info.platform) {
                    val here = declared + info.annotations
                    if (nearest == null) nearest = here
                    if (OVERRIDE_ONLY in here) overrideOnly = true
                }
                queue.addAll(info.supers)
            }
            return nearest?.let { if (overrideOnly) it + OVERRIDE_ONLY else it }
        }
    }

    private companion object {
        const val OVERRIDE_ONLY = "Lorg/jetbrains/annotations/ApiStatus\$OverrideOnly;"
        const val DEPRECATED = "Ljava/lang/Deprecated;"
        val FORBIDDEN = listOf(
            "Lorg/jetbrains/annotations/ApiStatus\$Internal;",
            "Lorg/jetbrains/annotations/ApiStatus\$ScheduledForRemoval;",
            "Lorg/jetbrains/annotations/ApiStatus\$Experimental;",
            DEPRECATED,
        )

        fun classFiles(dir: Path): List<Path> = if (!Files.isDirectory(dir)) emptyList() else Files.walk(dir).use { paths ->
            paths.filter { it.toString().endsWith(".class") }.toList()
        }
    }
}
