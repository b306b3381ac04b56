/**
 * Nothing an HTTP request reaches in the compiled adapter opens a dialog or waits for the
 * EDT without a bound (plugin-kotlin/README.md, "Under a busy IDE"): a call graph is built
 * from the router (`RequestRouter`, the one thing the HTTP server hands a request to)
 * over the classes compiled from core/ and ide/, and every platform call it reaches is
 * held to [RULES]: no message dialog or `DialogWrapper`, no conflicts dialog, no
 * refactoring processor's `run()` unless its class answers every hook where `doRun`
 * asks, no `SafeDeleteProcessor` at all (its `performRefactoring` turns an
 * `IncorrectOperationException` into an error dialog, and the adapter can do its
 * deletion itself), no `invokeAndWait` (the platform's takes no timeout, so "every invokeAndWait has
 * the route's timeout" means none at all: the one wait for the EDT is the core's
 * `IdeGate.write`, bounded by the request's deadline and tested in the core), no
 * synchronous VFS refresh (it waits for the EDT the same way), no inspection run under a
 * progress indicator of its own (no write action can cancel it).
 *
 * Why compiled classes (ASM, as ApiStatusCheckTest) and not the sources: the classes are
 * what runs, with the Kotlin compiler's decisions already made (overloads, default-argument
 * bridges, inline functions, SAM conversions, lambdas as `invokedynamic` handles to their
 * bodies), which a scan of the sources would have to guess at; and the arguments a call
 * gets can be traced to the instruction that pushed them (the `async` flag of a refresh).
 * The graph errs towards reaching more: a virtual or interface call reaches every class
 * of ours that declares the method (class hierarchy analysis), a class of ours
 * instantiated on the path has all its methods reached (the platform calls back into
 * them: a processor's overrides, a task handed to the EDT), and so does its static
 * initialiser once it is touched. Calls on JDK and Kotlin interfaces (`Runnable.run`,
 * `Function1.invoke`) are not widened: the lambdas behind them are reached where they are
 * created.
 *
 * `BlockingBackend` (a test fixture, never part of the adapter) breaks every rule once,
 * each behind the router like a real backend; the probe test builds the graph with it and
 * requires every rule to report it, and the one asynchronous refresh it also makes to go
 * unreported.
 */
package com.leanctx.idecheck

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.objectweb.asm.ClassReader
import org.objectweb.asm.Handle
import org.objectweb.asm.Opcodes
import org.objectweb.asm.Type
import org.objectweb.asm.tree.AbstractInsnNode
import org.objectweb.asm.tree.ClassNode
import org.objectweb.asm.tree.FieldInsnNode
import org.objectweb.asm.tree.InvokeDynamicInsnNode
import org.objectweb.asm.tree.MethodInsnNode
import org.objectweb.asm.tree.MethodNode
import org.objectweb.asm.tree.TypeInsnNode
import org.objectweb.asm.tree.analysis.Analyzer
import org.objectweb.asm.tree.analysis.Frame
import org.objectweb.asm.tree.analysis.SourceInterpreter
import org.objectweb.asm.tree.analysis.SourceValue
import java.nio.file.Files
import java.nio.file.Path

class AgentPathCheckTest {
    private val classes = Path.of(System.getProperty("leanctx.classesDir") ?: error("leanctx.classesDir is not set (run through Maven)"))
    private val testClasses = Path.of(System.getProperty("leanctx.testClassesDir") ?: error("leanctx.testClassesDir is not set (run through Maven)"))

    @Test
    fun `nothing an HTTP request reaches opens a dialog or waits for the EDT without a bound`() {
        val graph = CallGraph(listOf(classes))
        val reached = graph.reach(ENTRY)
        // The walk must cross the router's lambdas, interface calls into the adapter, the
        // gate's primitives, the extension point's provider and a processor's overrides,
        // or an empty list of violations proves nothing.
        for (method in listOf(
            "com/leanctx/plugin/psi/PsiNavigation.references",
            "com/leanctx/plugin/psi/PsiRefactorings.renameApply",
            "com/leanctx/plugin/psi/IdeDocumentStore.edit",
            "com/leanctx/plugin/psi/PsiInspections.run",
            "com/leanctx/plugin/psi/PsiReformatter.reformat",
            "com/leanctx/plugin/jvm/JvmCallHierarchy.tree",
        )) {
            assertTrue(reached.keys.any { it.startsWith("$method(") }, "$method is not reached: the graph misses edges")
        }
        assertTrue(reached.keys.any { it.startsWith("com/leanctx/plugin/psi/PsiLocator$") && ".onEdt(" in it }, "the gate's EDT primitive is not reached")
        assertTrue(reached.keys.any { it.startsWith("com/leanctx/plugin/psi/PsiRefactorings$") && ".preprocessUsages(" in it }, "the move processor's overrides are not reached")
        // The Tools menu shows the CLI's output in a dialog; no request reaches it.
        assertFalse(reached.keys.any { it.startsWith("com/leanctx/plugin/ui/") }, "a request reaches the UI: ${reached.keys.filter { it.startsWith("com/leanctx/plugin/ui/") }}")
        assertEquals(emptyList<String>(), graph.violations(reached))
    }

    @Test
    fun `a backend that opens dialogs, waits for the EDT or refreshes synchronously is caught behind the router`() {
        val graph = CallGraph(listOf(classes, testClasses))
        val found = graph.violations(graph.reach(ENTRY)).filter { it.startsWith(FIXTURE) }
        for (rule in RULES) {
            assertTrue(found.any { "[${rule.name}]" in it }, "rule ${rule.name} did not report the fixture: $found")
        }
        // Reached through a private helper, the dialog is still reported where it is called.
        assertTrue(found.any { it.startsWith("$FIXTURE.warn") && "Messages.showErrorDialog" in it }, found.toString())
        assertFalse(found.any { it.startsWith("$FIXTURE.refreshedLater") }, "an asynchronous refresh was reported: $found")
    }

    /** A platform call on the path, with what pushed each of its arguments. */
    private class Call(val owner: String, val name: String, val descriptor: String, val graph: CallGraph, private val args: List<SourceValue>?) {
        /** Whether argument [index] is the constant `true`, as far as the bytecode shows. */
        fun isTrue(index: Int): Boolean {
            val pushed = args?.getOrNull(index)?.insns ?: return false
            return pushed.size == 1 && pushed.single().opcode == Opcodes.ICONST_1
        }
    }

    private class Rule(val name: String, val why: String, val matches: (Call) -> Boolean)

    /**
     * Every class of [roots] with its methods; ours are `com/leanctx/`, the stubs the
     * platform.
     */
    private class CallGraph(roots: List<Path>) {
        private val classes: Map<String, ClassNode> = roots.flatMap(::classFiles).associate { file ->
            val node = ClassNode()
            ClassReader(Files.readAllBytes(file)).accept(node, 0)
            node.name to node
        }

        private fun supers(name: String): List<String> = classes[name]?.let { listOfNotNull(it.superName) + it.interfaces } ?: emptyList()

        fun isSubtype(name: String, of: String): Boolean {
            val queue = ArrayDeque(listOf(name))
            val seen = HashSet<String>()
            while (queue.isNotEmpty()) {
                val type = queue.removeFirst()
                if (type == of) return true
                if (seen.add(type)) queue.addAll(supers(type))
            }
            return false
        }

        private fun declares(owner: String, name: String, descriptor: String): Boolean =
            classes[owner]?.methods?.any { it.name == name && it.desc == descriptor } == true

        /** Whether [owner] is a class of ours declaring every one of [methods] (name plus descriptor). */
        fun declaresAll(owner: String, methods: List<String>): Boolean =
            ours(owner) && methods.all { m -> declares(owner, m.substringBefore('('), m.substring(m.indexOf('('))) }

        /** The class a call to [owner].[name] lands in when [owner] is the receiver's own class. */
        private fun declaring(owner: String, name: String, descriptor: String): String? {
            val queue = ArrayDeque(listOf(owner))
            val seen = HashSet<String>()
            while (queue.isNotEmpty()) {
                val type = queue.removeFirst()
                if (!seen.add(type)) continue
                if (declares(type, name, descriptor)) return type
                queue.addAll(supers(type))
            }
            return null
        }

        /** The methods of ours a call may run. */
        private fun targets(call: MethodInsnNode): List<String> {
            val out = ArrayList<String>()
            declaring(call.owner, call.name, call.desc)?.takeIf(::ours)?.let { out.add(key(it, call.name, call.desc)) }
            val dispatched = call.opcode == Opcodes.INVOKEVIRTUAL || call.opcode == Opcodes.INVOKEINTERFACE
            if (dispatched && (ours(call.owner) || platform(call.owner))) {
                classes.keys.filter { ours(it) && it != call.owner && declares(it, call.name, call.desc) && isSubtype(it, call.owner) }
                    .mapTo(out) { key(it, call.name, call.desc) }
            }
            return out
        }

        /** Every method of [owner] and of its superclasses of ours: what the platform may call back. */
        private fun allOf(owner: String): List<String> = generateSequence(owner) { classes[it]?.superName }
            .takeWhile(::ours)
            .flatMap { type -> classes[type]?.methods.orEmpty().map { key(type, it.name, it.desc) } }
            .toList()

        /** The methods of ours reached from every method of [entry], each with the one it was reached from. */
        fun reach(entry: String): Map<String, String?> {
            val parent = LinkedHashMap<String, String?>()
            val queue = ArrayDeque<String>()
            fun visit(method: String, from: String?) {
                if (method !in parent) {
                    parent[method] = from
                    queue.add(method)
                }
            }
            classes[entry]!!.methods.forEach { visit(key(entry, it.name, it.desc), null) }
            while (queue.isNotEmpty()) {
                val current = queue.removeFirst()
                val node = method(current) ?: continue
                for (insn in node.instructions) {
                    when (insn) {
                        is MethodInsnNode -> {
                            targets(insn).forEach { visit(it, current) }
                            if (insn.opcode == Opcodes.INVOKESTATIC && ours(insn.owner)) visit(key(insn.owner, "<clinit>", "()V"), current)
                        }
                        is InvokeDynamicInsnNode -> insn.bsmArgs.filterIsInstance<Handle>().filter { ours(it.owner) }
                            .forEach { visit(key(it.owner, it.name, it.desc), current) }
                        is TypeInsnNode -> if (insn.opcode == Opcodes.NEW && ours(insn.desc)) allOf(insn.desc).forEach { visit(it, current) }
                        is FieldInsnNode -> if ((insn.opcode == Opcodes.GETSTATIC || insn.opcode == Opcodes.PUTSTATIC) && ours(insn.owner)) {
                            visit(key(insn.owner, "<clinit>", "()V"), current)
                        }
                    }
                }
            }
            return parent
        }

        private fun method(key: String): MethodNode? {
            val owner = key.substringBefore('.')
            val rest = key.substringAfter('.')
            return classes[owner]?.methods?.firstOrNull { it.name + it.desc == rest }
        }

        /** `caller calls owner.name: why [rule] (reached: entry <- ... <- caller)` for every rule a reached call breaks. */
        fun violations(reached: Map<String, String?>): List<String> {
            val out = ArrayList<String>()
            for (caller in reached.keys) {
                val node = method(caller) ?: continue
                val owner = caller.substringBefore('.')
                val frames: Array<Frame<SourceValue>?> by lazy { Analyzer(SourceInterpreter()).analyze(owner, node) }
                for ((index, insn) in node.instructions.withIndex()) {
                    // A call that lands in a method of ours is walked, not judged; one on a
                    // class of ours that lands in the platform (a processor subclass's run) is judged.
                    if (insn !is MethodInsnNode || declaring(insn.owner, insn.name, insn.desc)?.let(::ours) == true) continue
                    val call = Call(insn.owner, insn.name, insn.desc, this, arguments(insn, frames[index]))
                    for (rule in RULES.filter { it.matches(call) }) {
                        out.add("${caller.substringBefore('(')} calls ${insn.owner.substringAfterLast('/')}.${insn.name}: ${rule.why} [${rule.name}] (reached: ${path(reached, caller)})")
                    }
                }
            }
            return out
        }

        /** What pushed each argument of [call], from the frame before it. */
        private fun arguments(call: AbstractInsnNode, frame: Frame<SourceValue>?): List<SourceValue>? {
            if (frame == null || call !is MethodInsnNode) return null
            val count = Type.getArgumentTypes(call.desc).size
            return (0 until count).map { frame.getStack(frame.stackSize - count + it) }
        }

        private fun path(reached: Map<String, String?>, method: String): String =
            generateSequence(method) { reached[it] }.map { it.substringBefore('(').substringAfterLast('/') }.toList().reversed().joinToString(" -> ")
    }

    private companion object {
        const val ENTRY = "com/leanctx/core/server/RequestRouter"
        const val FIXTURE = "com/leanctx/idecheck/BlockingBackend"
        const val PROCESSOR = "com/intellij/refactoring/BaseRefactoringProcessor"

        /**
         * Every hook where BaseRefactoringProcessor.doRun asks a person or shows an error
         * dialog about its search. (Its usage view for modules that are not loaded is
         * decided in computeUnloadedModulesFromUseScope, private in the 2019 form read, so
         * no subclass can be required to answer it: the move is refused before it runs
         * instead, HumanQuestion.UnloadedModulesUsageView.)
         */
        val ASKING_HOOKS = listOf(
            "findUsages()[Lcom/intellij/usageView/UsageInfo;",
            "preprocessUsages(Lcom/intellij/openapi/util/Ref;)Z",
            "isPreviewUsages([Lcom/intellij/usageView/UsageInfo;)Z",
            "showConflicts(Lcom/intellij/util/containers/MultiMap;[Lcom/intellij/usageView/UsageInfo;)Z",
        )

        val RULES = listOf(
            Rule("dialog", "opens a modal dialog a person must answer") { c ->
                c.owner == "com/intellij/openapi/ui/Messages" || c.graph.isSubtype(c.owner, "com/intellij/openapi/ui/DialogWrapper")
            },
            Rule("conflicts-dialog", "opens the refactoring's conflicts dialog") { c ->
                c.name in setOf("showConflicts", "processConflicts") && c.graph.isSubtype(c.owner, PROCESSOR)
            },
            Rule("asking-processor", "runs doRun, which asks in dialogs wherever the processor's class does not answer (${ASKING_HOOKS.joinToString { it.substringBefore('(') }}); hand it computed usages through executeEx instead") { c ->
                c.name == "run" && c.descriptor == "()V" && c.graph.isSubtype(c.owner, PROCESSOR) && !c.graph.declaresAll(c.owner, ASKING_HOOKS)
            },
            Rule("error-dialog-processor", "runs SafeDeleteProcessor, whose performRefactoring shows an IncorrectOperationException in an error dialog instead of letting it reach the apply's rollback; delete through SafeDeleteProcessorDelegate and PsiElement.delete") { c ->
                c.owner == "com/intellij/refactoring/safeDelete/SafeDeleteProcessor" && c.name in setOf("run", "executeEx")
            },
            Rule("unbounded-edt-wait", "waits for the EDT without a bound (no platform invokeAndWait takes a timeout); use IdeGate.write") { c ->
                c.name.startsWith("invokeAndWait") || (c.owner == "com/intellij/openapi/application/WriteAction" && c.name in setOf("runAndWait", "computeAndWait"))
            },
            Rule("synchronous-refresh", "refreshes the VFS synchronously, which waits for the EDT without a bound; refresh asynchronously and wait in IdeGate.await") { c ->
                c.owner.startsWith("com/intellij/openapi/vfs/") && (
                    c.name.startsWith("refreshAndFindFileBy") || c.name == "markDirtyAndRefresh" || c.name == "refresh" ||
                        (c.name in setOf("refreshFiles", "refreshNioFiles", "refreshIoFiles") && !c.isTrue(1))
                    )
            },
            Rule("uncancellable-inspection", "runs inspections under a progress indicator of its own, which no write action cancels; pass the read action's to inspectEx") { c ->
                c.owner == "com/intellij/codeInspection/InspectionEngine" && c.name == "runInspectionOnFile"
            },
        )

        fun ours(name: String) = name.startsWith("com/leanctx/")

        fun platform(name: String) = name.startsWith("com/intellij/") || name.startsWith("org/jetbrains/")

        fun key(owner: String, name: String, descriptor: String) = "$owner.$name$descriptor"

        fun classFiles(dir: Path): List<Path> = if (!Files.isDirectory(dir)) emptyList() else Files.walk(dir).use { paths ->
            paths.filter { it.toString().endsWith(".class") }.toList()
        }
    }
}
