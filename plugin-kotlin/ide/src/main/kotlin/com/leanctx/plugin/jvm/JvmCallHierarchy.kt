/**
 * Call hierarchy for Java and Kotlin (docs/ide-wire.md, `/call_hierarchy`) through the
 * structures the IDE's own Call Hierarchy view is built from (`com.intellij.ide.hierarchy.call`):
 *
 * - incoming: `CallerMethodsTreeStructure` finds the references to the method (and to its
 *   super methods) and hands each to every language's `CallReferenceProcessor`: Java's,
 *   and the Kotlin plugin's for Kotlin callers;
 * - outgoing: `CalleeMethodsTreeStructure` reads the calls in a Java method body, and adds
 *   the methods overriding it (a call may reach those instead). It cannot read a Kotlin
 *   body, so the callees of a Kotlin function are `UNSUPPORTED_LANGUAGE`: the daemon then
 *   asks the language server.
 *
 * Every node is expanded by a structure rooted at it, so nodes of any descriptor class
 * (the Kotlin plugin adds its own) expand alike; each function is expanded once (reached
 * again, it is listed, not followed), level by level to the requested depth, at most
 * [RESULT_LIMIT] nodes. The structures search everywhere (the view's "All"); a function
 * outside the request's scope is left out and not followed.
 *
 * The platform's descriptors keep their call references private, so the call sites are
 * the references to the callee inside the caller (`ReferencesSearch` in a
 * `LocalSearchScope`): none for a call that reaches the callee through a super method,
 * nor for an override listed as a callee.
 */
package com.leanctx.plugin.jvm

import com.intellij.ide.hierarchy.HierarchyBrowserBaseEx
import com.intellij.ide.hierarchy.HierarchyNodeDescriptor
import com.intellij.ide.hierarchy.call.CalleeMethodsTreeStructure
import com.intellij.ide.hierarchy.call.CallerMethodsTreeStructure
import com.intellij.openapi.project.DumbService
import com.intellij.psi.PsiElement
import com.intellij.psi.PsiFile
import com.intellij.psi.PsiMember
import com.intellij.psi.PsiMethod
import com.intellij.psi.PsiNamedElement
import com.intellij.psi.search.GlobalSearchScope
import com.intellij.psi.search.LocalSearchScope
import com.intellij.psi.search.searches.ReferencesSearch
import com.leanctx.core.policy.ApplyOutcome
import com.leanctx.core.wire.CallDirection
import com.leanctx.core.wire.CallHierarchyResponse
import com.leanctx.core.wire.CallNode
import com.leanctx.core.wire.ErrorCode
import com.leanctx.core.wire.LeanCtxException
import com.leanctx.core.wire.Location
import com.leanctx.core.wire.RESULT_LIMIT
import com.leanctx.core.wire.Range
import com.leanctx.plugin.psi.PsiLocator
import org.jetbrains.uast.UMethod
import org.jetbrains.uast.getUastParentOfType
import org.jetbrains.uast.toUElement

internal class JvmCallHierarchy(
    private val locator: PsiLocator,
    private val scope: GlobalSearchScope,
    private val direction: CallDirection,
) {
    /** A function reached, where its name is, and the calls linking it to its parent. */
    private class Reached(val member: PsiMember, val at: Location, val sites: List<Range>) {
        val children = ArrayList<Reached>()
    }

    /** Inside a smart read action: the hierarchy of the function at [offset], [depth] levels deep. */
    fun tree(file: PsiFile, offset: Int, depth: Int): CallHierarchyResponse {
        val symbol = locator.symbolAt(file, offset)
        val method = (symbol.toUElement() as? UMethod)?.javaPsi ?: symbol as? PsiMethod
            ?: throw LeanCtxException(ErrorCode.NO_SYMBOL_AT_POSITION, "no function or method at offset $offset of ${file.name}")
        val source = method.navigationElement
        if (direction == CallDirection.OUTGOING && !source.language.isKindOf("JAVA")) {
            throw LeanCtxException(
                ErrorCode.UNSUPPORTED_LANGUAGE,
                "the IDE reads the calls of Java method bodies only, not ${source.language.displayName}",
            )
        }
        val root = Reached(method, locator.location(method) ?: throw LeanCtxException(ErrorCode.NO_SYMBOL_AT_POSITION, "${method.name} has no source"), emptyList())
        val expanded = hashSetOf<PsiMember>(method)
        var level = listOf(root)
        var count = 0
        var truncated = false
        levels@ for (d in 1..depth) {
            val next = ArrayList<Reached>()
            for (parent in level) {
                for (member in calls(parent.member)) {
                    if (count == RESULT_LIMIT) {
                        truncated = true
                        break@levels
                    }
                    val at = locator.location(member) ?: continue
                    val (caller, callee) = if (direction == CallDirection.INCOMING) member to parent.member else parent.member to member
                    val child = Reached(member, at, sites(caller, callee))
                    parent.children.add(child)
                    count++
                    if (expanded.add(member)) next.add(child)
                }
            }
            level = next
        }
        // The structures answer an index that is not ready with no children: a partial tree.
        if (DumbService.isDumb(locator.project)) throw ApplyOutcome.indexing()
        return CallHierarchyResponse(wire(root), truncated)
    }

    /** The functions [member] calls or is called by, in the request's scope, each once. */
    private fun calls(member: PsiMember): List<PsiMember> {
        val structure = when (direction) {
            CallDirection.INCOMING -> CallerMethodsTreeStructure(locator.project, member, HierarchyBrowserBaseEx.SCOPE_ALL)
            CallDirection.OUTGOING -> CalleeMethodsTreeStructure(locator.project, member, HierarchyBrowserBaseEx.SCOPE_ALL)
        }
        return structure.getChildElements(structure.baseDescriptor)
            .mapNotNull { (it as? HierarchyNodeDescriptor)?.psiElement?.let(::function) }
            .filter { f -> f.navigationElement.containingFile?.virtualFile?.let(scope::contains) == true }
            .distinct()
    }

    /**
     * The function a descriptor's element stands for: a caller's descriptor holds the call
     * (its enclosing function is meant), a callee's the function itself.
     */
    private fun function(element: PsiElement): PsiMember? =
        element.getUastParentOfType(UMethod::class.java)?.javaPsi ?: element as? PsiMethod

    /** Where [caller] calls [callee]: the references to it inside the caller's source. */
    private fun sites(caller: PsiMember, callee: PsiMember): List<Range> {
        // A Kotlin function's references are the declaration's, not its light method's.
        val target = callee.toUElement()?.sourcePsi ?: callee
        return ReferencesSearch.search(target, LocalSearchScope(caller.navigationElement)).findAll()
            .mapNotNull { ref ->
                val element = ref.element
                val start = element.textRange.startOffset + ref.rangeInElement.startOffset
                locator.location(element, start, start + ref.rangeInElement.length)?.range
            }
            .distinct()
            .sortedBy { it.start }
    }

    private fun wire(n: Reached): CallNode =
        CallNode((n.member as? PsiNamedElement)?.name ?: "<anonymous>", kind(n.member), n.at.path, n.at.range, n.sites, n.children.map(::wire))

    private fun kind(member: PsiMember): String = when {
        member is PsiMethod && member.isConstructor -> "constructor"
        // A Kotlin top-level function: its declaration lies in the file, not in a class.
        member.navigationElement.parent is PsiFile -> "function"
        else -> "method"
    }
}
