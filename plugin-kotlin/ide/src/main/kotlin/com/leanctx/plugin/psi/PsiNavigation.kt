/**
 * [Navigation] on the IDE's indexes, language-neutral: whatever language plugin provides
 * references and definitions answers. The symbol at the position is what a reference
 * there resolves to, or the declaration named there.
 *
 * - references: `ReferencesSearch` in the requested scope;
 * - definition: the symbol's navigation element (the source, for library symbols);
 * - declaration: the resolved symbol as the IDE holds it (a library's stub or header);
 * - implementations: `DefinitionsScopedSearch` (overrides, implementing classes).
 */
package com.leanctx.plugin.psi

import com.intellij.psi.search.searches.DefinitionsScopedSearch
import com.intellij.psi.search.searches.ReferencesSearch
import com.leanctx.core.api.Navigation
import com.leanctx.core.wire.Location
import com.leanctx.core.wire.LocationsResponse
import com.leanctx.core.wire.PositionRequest

class PsiNavigation(private val locator: PsiLocator) : Navigation {
    override fun references(request: PositionRequest): LocationsResponse = locator.readFile(request.path) { file ->
        val symbol = locator.symbolAt(file, locator.offset(file, request.position))
        val found = ReferencesSearch.search(symbol, locator.scope(request.scope)).findAll().mapNotNull { ref ->
            val element = ref.element
            val start = element.textRange.startOffset + ref.rangeInElement.startOffset
            locator.location(element, start, start + ref.rangeInElement.length)
        }
        LocationsResponse.of(sorted(found))
    }

    override fun definition(request: PositionRequest): LocationsResponse = locator.readFile(request.path) { file ->
        val symbol = locator.symbolAt(file, locator.offset(file, request.position))
        LocationsResponse.of(listOfNotNull(locator.location(symbol)))
    }

    override fun declaration(request: PositionRequest): LocationsResponse = locator.readFile(request.path) { file ->
        val symbol = locator.symbolAt(file, locator.offset(file, request.position))
        LocationsResponse.of(listOfNotNull(locator.location(symbol, navigate = false) ?: locator.location(symbol)))
    }

    override fun implementations(request: PositionRequest): LocationsResponse = locator.readFile(request.path) { file ->
        val symbol = locator.symbolAt(file, locator.offset(file, request.position))
        val found = DefinitionsScopedSearch.search(symbol, locator.scope(request.scope)).findAll().mapNotNull { locator.location(it) }
        LocationsResponse.of(sorted(found))
    }

    /** Stable order (path, then position), so repeated calls and truncation are deterministic. */
    private fun sorted(locations: List<Location>): List<Location> =
        locations.distinct().sortedWith(compareBy<Location> { it.path }.thenBy { it.range.start })
}
