/**
 * [Structure] through the `com.leanctx.plugin.structureProvider` extension point. The
 * core plugin registers no provider: structure needs language PSI, and the only one
 * shipped lives in the optional JVM module (leanctx-jvm.xml, Java and Kotlin). In an IDE
 * without it (RustRover, PyCharm) the answer is `UNSUPPORTED_LANGUAGE`, and the daemon
 * serves `symbols_overview` from its tree-sitter index and the hierarchies from the
 * language server instead.
 */
package com.leanctx.plugin.psi

import com.intellij.openapi.extensions.ExtensionPointName
import com.intellij.psi.PsiFile
import com.intellij.psi.search.GlobalSearchScope
import com.leanctx.core.api.Structure
import com.leanctx.core.wire.CallHierarchyRequest
import com.leanctx.core.wire.CallHierarchyResponse
import com.leanctx.core.wire.ErrorCode
import com.leanctx.core.wire.FileRequest
import com.leanctx.core.wire.HierarchyDirection
import com.leanctx.core.wire.LeanCtxException
import com.leanctx.core.wire.SymbolInfo
import com.leanctx.core.wire.SymbolsOverviewResponse
import com.leanctx.core.wire.TypeHierarchyRequest
import com.leanctx.core.wire.TypeHierarchyResponse

/** Language-specific structure, registered by optional modules. Called inside a smart read action. */
interface LeanCtxStructureProvider {
    fun supports(file: PsiFile): Boolean

    /** The file's top-level declarations and their members, in source order. */
    fun symbolsOverview(file: PsiFile, locator: PsiLocator): List<SymbolInfo>

    fun typeHierarchy(
        file: PsiFile,
        offset: Int,
        direction: HierarchyDirection,
        scope: GlobalSearchScope,
        locator: PsiLocator,
    ): TypeHierarchyResponse

    /** Who calls the function at [offset], or what it calls, to `request.depth` levels. */
    fun callHierarchy(
        file: PsiFile,
        offset: Int,
        request: CallHierarchyRequest,
        scope: GlobalSearchScope,
        locator: PsiLocator,
    ): CallHierarchyResponse

    companion object {
        val EP_NAME: ExtensionPointName<LeanCtxStructureProvider> =
            ExtensionPointName.create("com.leanctx.plugin.structureProvider")
    }
}

class PsiStructure(private val locator: PsiLocator) : Structure {
    override fun symbolsOverview(request: FileRequest): SymbolsOverviewResponse = locator.readFile(request.path) { file ->
        SymbolsOverviewResponse.of(provider(file, "symbols_overview").symbolsOverview(file, locator))
    }

    override fun typeHierarchy(request: TypeHierarchyRequest): TypeHierarchyResponse = locator.readFile(request.path) { file ->
        val offset = locator.offset(file, request.position)
        provider(file, "type_hierarchy").typeHierarchy(file, offset, request.direction, locator.scope(request.scope), locator)
    }

    override fun callHierarchy(request: CallHierarchyRequest): CallHierarchyResponse = locator.readFile(request.path) { file ->
        val offset = locator.offset(file, request.position)
        provider(file, "call_hierarchy").callHierarchy(file, offset, request, locator.scope(request.scope), locator)
    }

    private fun provider(file: PsiFile, action: String): LeanCtxStructureProvider =
        LeanCtxStructureProvider.EP_NAME.extensionList.firstOrNull { it.supports(file) }
            ?: throw LeanCtxException(
                ErrorCode.UNSUPPORTED_LANGUAGE,
                "$action requires a JVM-capable IDE (no structure provider for ${file.language.displayName})",
            )
}
