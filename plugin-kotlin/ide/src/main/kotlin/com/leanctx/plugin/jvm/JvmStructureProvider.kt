/**
 * Structure for Java and Kotlin (docs/ide-wire.md, Routes), through UAST so one
 * implementation serves both languages and both Kotlin plugin modes (K1 and K2).
 * Registered only by the optional leanctx-jvm.xml, which loads only where the Kotlin
 * plugin (and with it Java) is present; other IDEs never load this class.
 *
 * - symbols_overview: each class of the file with its methods, fields and inner classes,
 *   in source order; a Kotlin file's facade class (top-level functions) contributes its
 *   members without itself;
 * - type_hierarchy: the class at the position, then its supertypes (`PsiClass.supers`)
 *   or its subtypes (`ClassInheritorsSearch`, direct ones per level), cut at
 *   [NODE_LIMIT] nodes with `truncated`;
 * - call_hierarchy: [JvmCallHierarchy].
 */
package com.leanctx.plugin.jvm

import com.intellij.psi.PsiClass
import com.intellij.psi.PsiFile
import com.intellij.psi.search.GlobalSearchScope
import com.intellij.psi.search.searches.ClassInheritorsSearch
import com.leanctx.core.wire.CallHierarchyRequest
import com.leanctx.core.wire.CallHierarchyResponse
import com.leanctx.core.wire.ErrorCode
import com.leanctx.core.wire.HierarchyDirection
import com.leanctx.core.wire.HierarchyNode
import com.leanctx.core.wire.LeanCtxException
import com.leanctx.core.wire.SymbolInfo
import com.leanctx.core.wire.TypeHierarchyResponse
import com.leanctx.plugin.psi.LeanCtxStructureProvider
import com.leanctx.plugin.psi.PsiLocator
import org.jetbrains.uast.UClass
import org.jetbrains.uast.UFile
import org.jetbrains.uast.getUastParentOfType
import org.jetbrains.uast.toUElement

class JvmStructureProvider : LeanCtxStructureProvider {
    override fun supports(file: PsiFile): Boolean = file.toUElement() is UFile

    override fun symbolsOverview(file: PsiFile, locator: PsiLocator): List<SymbolInfo> {
        val uFile = file.toUElement() as? UFile ?: return emptyList()
        val out = ArrayList<SymbolInfo>()
        for (c in uFile.classes) addClass(c, file, locator, out)
        return out.sortedBy { it.line }
    }

    private fun addClass(c: UClass, file: PsiFile, locator: PsiLocator, out: MutableList<SymbolInfo>) {
        val facade = c.sourcePsi == null || c.sourcePsi == file
        if (!facade) out.add(SymbolInfo(c.name ?: "<anonymous>", kind(c.javaPsi), locator.line1(c.javaPsi)))
        for (m in c.methods) {
            if (m.sourcePsi == null) continue // generated: default constructors, data-class members
            out.add(SymbolInfo(m.name, if (m.isConstructor) "constructor" else if (facade) "function" else "method", locator.line1(m.javaPsi)))
        }
        for (f in c.fields) {
            // UField does not narrow UElement.javaPsi (a PsiElement?; only UFieldEx does), so the line is
            // read from the source element, which is also where a light field navigates to.
            val source = f.sourcePsi ?: continue
            out.add(SymbolInfo(f.name, if (facade) "property" else "field", locator.line1(source)))
        }
        for (inner in c.innerClasses) addClass(inner, file, locator, out)
    }

    private fun kind(c: PsiClass): String = when {
        c.isAnnotationType -> "annotation"
        c.isInterface -> "interface"
        c.isEnum -> "enum"
        c.isRecord -> "record"
        else -> "class"
    }

    override fun typeHierarchy(
        file: PsiFile,
        offset: Int,
        direction: HierarchyDirection,
        scope: GlobalSearchScope,
        locator: PsiLocator,
    ): TypeHierarchyResponse {
        val leaf = file.findElementAt(offset)
        val resolved = file.findReferenceAt(offset)?.resolve()
        val psiClass = (resolved as? PsiClass)
            ?: (resolved?.toUElement() as? UClass)?.javaPsi
            // An extension on PsiElement? (UastUtils.kt), not a function of two arguments.
            ?: leaf.getUastParentOfType(UClass::class.java)?.javaPsi
            ?: throw LeanCtxException(ErrorCode.NO_SYMBOL_AT_POSITION, "no class or interface at offset $offset of ${file.name}")
        val budget = intArrayOf(NODE_LIMIT)
        val tree = node(psiClass, direction, scope, locator, budget, HashSet())
        return TypeHierarchyResponse(tree, budget[0] < 0)
    }

    override fun callHierarchy(
        file: PsiFile,
        offset: Int,
        request: CallHierarchyRequest,
        scope: GlobalSearchScope,
        locator: PsiLocator,
    ): CallHierarchyResponse = JvmCallHierarchy(locator, scope, request.direction).tree(file, offset, request.depth)

    /** [budget] counts nodes left; it goes negative once something was left out. */
    private fun node(
        c: PsiClass,
        direction: HierarchyDirection,
        scope: GlobalSearchScope,
        locator: PsiLocator,
        budget: IntArray,
        seen: MutableSet<PsiClass>,
    ): HierarchyNode {
        budget[0]--
        val next = if (!seen.add(c)) {
            emptyList()
        } else {
            when (direction) {
                HierarchyDirection.SUPERTYPES -> c.supers.filter { it.qualifiedName != "java.lang.Object" }
                HierarchyDirection.SUBTYPES -> ClassInheritorsSearch.search(c, scope, false).findAll().sortedBy { it.qualifiedName }
            }
        }
        val children = ArrayList<HierarchyNode>()
        for (child in next) {
            if (budget[0] <= 0) {
                budget[0] = -1
                break
            }
            children.add(node(child, direction, scope, locator, budget, seen))
        }
        val path = (c.navigationElement.containingFile?.virtualFile ?: c.containingFile?.virtualFile)?.let(locator::wirePath) ?: ""
        return HierarchyNode(c.qualifiedName ?: c.name ?: "<anonymous>", path, locator.line1(c), children)
    }

    private companion object {
        const val NODE_LIMIT = 200
    }
}
