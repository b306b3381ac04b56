/**
 * Checks the adapter's plugin descriptors (`plugin.xml`, `leanctx-jvm.xml`) against the
 * classes compiled from `ide/src` (this module's output, on the test classpath next to
 * the platform stubs) and against the platform's side of the contract, transcribed in
 * `platform-descriptors.txt`:
 *
 * - every class a descriptor names exists, comes from `ide/src`, and implements what its
 *   extension point requires (an action is an `AnAction`, a tool window factory a
 *   `ToolWindowFactory`, ...);
 * - every extension point and every attribute used is one the platform (or the plugin
 *   itself) declares; every element and attribute of the descriptor is a known one;
 * - action and group ids are unique and groups added to exist;
 * - the rules issue 19 fixed stay fixed: `supportsKotlinPluginMode` in the main
 *   descriptor, actions and the tool window factory `DumbAware`;
 * - every extension point used exists from the first build `since-build` admits (the
 *   platform catalog records when one came later than the others), and no `order`
 *   anchors on an extension id the platform's sources do not confirm.
 */
package com.leanctx.idecheck

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.w3c.dom.Element
import java.io.ByteArrayInputStream
import java.nio.file.Files
import java.nio.file.Path
import javax.xml.parsers.DocumentBuilderFactory
import kotlin.io.path.readText

class DescriptorCheckTest {
    private val ideDir = Path.of(System.getProperty("leanctx.ideDir") ?: error("leanctx.ideDir is not set (run through Maven)"))
    private val metaInf = ideDir.resolve("src/main/resources/META-INF")
    private val main = parse(metaInf.resolve("plugin.xml"))

    /** Each optional config file of plugin.xml, by the id it depends on. */
    private val optional: Map<String, Element> = children(main, "depends")
        .filter { it.hasAttribute("config-file") }
        .associate { it.textContent.trim() to parse(metaInf.resolve(it.getAttribute("config-file"))) }

    private val descriptors: List<Pair<String, Element>> = listOf("plugin.xml" to main) +
        optional.map { (id, root) -> "config-file of $id" to root }

    private val platform = PlatformCatalog.load()

    /** Extension points plugin.xml declares itself, by qualified name, with their interface. */
    private val ownPoints: Map<String, String> = children(main, "extensionPoints").flatMap { children(it, "extensionPoint") }
        .associate { it.getAttribute("qualifiedName") to it.getAttribute("interface") }

    @Test
    fun `the descriptors use only known elements and attributes`() {
        val problems = ArrayList<String>()
        for ((name, root) in descriptors) {
            walk(root) { element, path ->
                // An extension's attributes are its extension point's business (the next test).
                if (path.endsWith("/*")) return@walk
                val allowed = SCHEMA[path]
                if (allowed == null) {
                    problems.add("$name: <${element.tagName}> at $path is not a descriptor element lean-ctx knows")
                } else {
                    attributes(element).filter { it !in allowed }.forEach { problems.add("$name: <${element.tagName}> has unknown attribute $it") }
                }
            }
        }
        assertEquals(emptyList<String>(), problems)
    }

    @Test
    fun `every extension is of a declared extension point, with its attributes and classes`() {
        val problems = ArrayList<String>()
        var seen = 0
        for ((name, root) in descriptors) {
            for (block in children(root, "extensions")) {
                val ns = block.getAttribute("defaultExtensionNs")
                for (extension in childElements(block)) {
                    seen++
                    val qualified = "$ns.${extension.tagName}"
                    val own = ownPoints[qualified]
                    val point = platform.points[qualified]
                    when {
                        own != null -> {
                            requireClass(problems, name, qualified, own, null)
                            checkAttributes(problems, name, qualified, extension, setOf("implementation"))
                            requireClass(problems, name, qualified, extension.getAttribute("implementation"), own)
                        }
                        point == null -> problems.add("$name: $qualified is not an extension point the stubbed platform declares")
                        else -> {
                            checkAttributes(problems, name, qualified, extension, point.attributes)
                            for ((attribute, type) in point.classAttributes) {
                                if (extension.hasAttribute(attribute)) requireClass(problems, name, qualified, extension.getAttribute(attribute), type)
                                else if (attribute == "implementation" || attribute == "factoryClass") problems.add("$name: $qualified lacks $attribute")
                            }
                        }
                    }
                }
            }
        }
        assertTrue(seen >= 6, "only $seen extensions found: the descriptors were not read")
        assertEquals(emptyList<String>(), problems)
    }

    @Test
    fun `every depends names a known plugin or module, and optional ones have their config file`() {
        val problems = ArrayList<String>()
        for ((name, root) in descriptors) {
            for (depends in children(root, "depends")) {
                val id = depends.textContent.trim()
                if (id !in platform.dependencies) problems.add("$name: depends on $id, which platform-descriptors.txt does not know")
                if (depends.getAttribute("optional") == "true" && !depends.hasAttribute("config-file")) problems.add("$name: optional $id has no config-file")
            }
        }
        assertEquals(emptyList<String>(), problems)
        assertEquals(setOf("org.jetbrains.kotlin"), optional.keys)
    }

    @Test
    fun `action and group ids are unique, classes are DumbAware actions, and groups added to exist`() {
        val problems = ArrayList<String>()
        val ids = ArrayList<String>()
        val groups = HashSet(platform.groups)
        for ((name, root) in descriptors) {
            for (actions in children(root, "actions")) {
                walk(actions) { element, _ ->
                    when (element.tagName) {
                        "group" -> {
                            ids.add(element.getAttribute("id"))
                            groups.add(element.getAttribute("id"))
                        }
                        "action" -> {
                            ids.add(element.getAttribute("id"))
                            requireClass(problems, name, "action ${element.getAttribute("id")}", element.getAttribute("class"), "com.intellij.openapi.actionSystem.AnAction")
                            requireClass(problems, name, "action ${element.getAttribute("id")}", element.getAttribute("class"), "com.intellij.openapi.project.DumbAware")
                        }
                    }
                }
            }
        }
        for ((name, root) in descriptors) {
            for (actions in children(root, "actions")) {
                walk(actions) { element, _ ->
                    if (element.tagName == "add-to-group" && element.getAttribute("group-id") !in groups) {
                        problems.add("$name: add-to-group ${element.getAttribute("group-id")} is neither a platform group nor one of ours")
                    }
                }
            }
        }
        assertTrue(ids.size >= 5, "only $ids found: the actions were not read")
        assertEquals(ids.size, ids.toSet().size, "duplicate action or group ids in $ids")
        assertTrue(ids.none { it.isBlank() }, "an action or group without an id")
        assertEquals(emptyList<String>(), problems)
    }

    @Test
    fun `supportsKotlinPluginMode is in the main descriptor, where the Kotlin plugin reads it`() {
        // The Kotlin plugin decides K2 compatibility from plugin.xml before loading any
        // optional config file; declared in leanctx-jvm.xml it is never seen (issue 19).
        val inMain = children(main, "extensions").filter { it.getAttribute("defaultExtensionNs") == "org.jetbrains.kotlin" }
            .flatMap { children(it, "supportsKotlinPluginMode") }
        assertEquals(1, inMain.size, "plugin.xml must declare supportsKotlinPluginMode once")
        assertEquals("true", inMain.single().getAttribute("supportsK2"))
        for ((id, root) in optional) {
            val elsewhere = ArrayList<Element>()
            walk(root) { element, _ -> if (element.tagName == "supportsKotlinPluginMode") elsewhere.add(element) }
            assertEquals(0, elsewhere.size, "the config file of $id declares supportsKotlinPluginMode, where it is never read")
        }
    }

    @Test
    fun `every extension point used exists from the first build since-build admits`() {
        val gradle = ideDir.resolve("build.gradle.kts").readText()
        val since = Regex("""sinceBuild = "([0-9.]+)"""").find(gradle)?.groupValues?.get(1) ?: error("build.gradle.kts sets no sinceBuild")
        // The catalog must know when supportsKotlinPluginMode came (2024.2.1), or this proves nothing.
        assertTrue("org.jetbrains.kotlin.supportsKotlinPluginMode" in platform.since, "platform-descriptors.txt lost the since line of supportsKotlinPluginMode")
        assertTrue(compareBuilds("242", "242.21829") < 0, "since-build 242 admits 2024.2.0 (242.20224)")
        val late = descriptors.flatMap { (name, root) ->
            children(root, "extensions").flatMap { block ->
                childElements(block).map { "${block.getAttribute("defaultExtensionNs")}.${it.tagName}" }
                    .filter { ep -> platform.since[ep]?.let { compareBuilds(it, since) > 0 } == true }
                    .map { ep -> "$name: $ep exists from build ${platform.since[ep]} on, but since-build $since admits earlier builds" }
            }
        }
        assertEquals(emptyList<String>(), late)
    }

    @Test
    fun `no extension is ordered against an id the platform's sources do not confirm`() {
        assertEquals(emptyList<String>(), descriptors.flatMap { (name, root) -> orderProblems(name, root) })
        // What the status-bar widget once declared: the platform names its encoding widget "Encoding" (StatusBar.StandardWidgets).
        val probe = DocumentBuilderFactory.newInstance().newDocumentBuilder()
            .parse(ByteArrayInputStream("""<idea-plugin><extensions defaultExtensionNs="com.intellij"><statusBarWidgetFactory id="w" order="after encodingWidget"/></extensions></idea-plugin>""".toByteArray()))
            .documentElement
        assertEquals(listOf("probe: com.intellij.statusBarWidgetFactory w is ordered after encodingWidget, which the platform's sources do not confirm as an extension id"), orderProblems("probe", probe))
    }

    /**
     * An `order` may say `first`, `last`, or `before`/`after` an extension of the plugin's
     * own: an anchor on a platform extension's id needs that id confirmed in the platform's
     * sources, and none is (an unknown anchor is silently ignored, so the order would
     * not be what it says).
     */
    private fun orderProblems(name: String, root: Element): List<String> {
        val own = children(root, "extensions").flatMap { childElements(it) }.map { it.getAttribute("id") }.filter { it.isNotBlank() }.toSet()
        return children(root, "extensions").flatMap { block ->
            childElements(block).filter { it.hasAttribute("order") }.flatMap { extension ->
                extension.getAttribute("order").split(',').map { it.trim() }.mapNotNull { token ->
                    val words = token.split(Regex("\\s+"))
                    when {
                        token == "first" || token == "last" -> null
                        words.size == 2 && words[0] in setOf("before", "after") && words[1] in own -> null
                        else -> "$name: ${block.getAttribute("defaultExtensionNs")}.${extension.tagName} ${extension.getAttribute("id")} is ordered ${token.ifEmpty { "(empty)" }}, which the platform's sources do not confirm as an extension id"
                    }
                }
            }
        }
    }

    @Test
    fun `the tool window factory is DumbAware`() {
        val problems = ArrayList<String>()
        for ((name, root) in descriptors) {
            children(root, "extensions").flatMap { children(it, "toolWindow") }.forEach {
                requireClass(problems, name, "toolWindow ${it.getAttribute("id")}", it.getAttribute("factoryClass"), "com.intellij.openapi.project.DumbAware")
            }
        }
        assertEquals(emptyList<String>(), problems)
    }

    @Test
    fun `the adapter uses the core's public API only, never the contract double`() {
        // The Gradle build leaves core/launcher out of the plugin; this module compiles it
        // in (the Kotlin Maven plugin has no source excludes), so guard it here.
        val offenders = Files.walk(ideDir.resolve("src/main/kotlin")).use { files ->
            files.filter { it.toString().endsWith(".kt") }.filter { it.readText().contains("com.leanctx.core.launcher") }.toList()
        }
        assertEquals(emptyList<Path>(), offenders)
    }

    private fun checkAttributes(problems: MutableList<String>, name: String, qualified: String, extension: Element, allowed: Set<String>) {
        attributes(extension).filter { it !in allowed && it !in COMMON_EXTENSION_ATTRIBUTES }
            .forEach { problems.add("$name: $qualified has attribute $it, which its extension point does not declare") }
    }

    /** [className] must be a class compiled from ide/src that is a [mustBe] (when given). */
    private fun requireClass(problems: MutableList<String>, name: String, what: String, className: String, mustBe: String?) {
        if (className.isBlank()) {
            problems.add("$name: $what names no class")
            return
        }
        val source = ideDir.resolve("src/main/kotlin").resolve(className.substringBefore('$').replace('.', '/').substringBeforeLast('/'))
        val loaded = try {
            Class.forName(className, false, javaClass.classLoader)
        } catch (e: ClassNotFoundException) {
            problems.add("$name: $what names $className, which ide/src does not define")
            return
        }
        if (!className.startsWith("com.leanctx.plugin.") || !Files.isDirectory(source)) {
            problems.add("$name: $what names $className, which is not the adapter's (ide/src)")
        }
        if (mustBe != null && !Class.forName(mustBe, false, javaClass.classLoader).isAssignableFrom(loaded)) {
            problems.add("$name: $what: $className is not a $mustBe")
        }
    }

    /**
     * The extension points, groups and dependency ids of `platform-descriptors.txt`, and
     * the first build of the points that came later than the oldest build the plugin admits.
     */
    private class PlatformCatalog(val points: Map<String, Point>, val groups: Set<String>, val dependencies: Set<String>, val since: Map<String, String>) {
        class Point(val attributes: Set<String>, val classAttributes: Map<String, String>)

        companion object {
            fun load(): PlatformCatalog {
                val text = DescriptorCheckTest::class.java.getResource("/platform-descriptors.txt")?.readText()
                    ?: error("platform-descriptors.txt is not on the test classpath")
                val points = HashMap<String, Point>()
                val groups = HashSet<String>()
                val dependencies = HashSet<String>()
                val since = HashMap<String, String>()
                for (line in text.lines().map { it.trim() }.filter { it.isNotEmpty() && !it.startsWith("#") }) {
                    val f = line.split(Regex("\\s+"))
                    when (f[0]) {
                        "ep" -> {
                            require(f.size >= 6) { "malformed line: $line" }
                            val attributes = f[4].split(',').toSet()
                            val classAttributes = when (f[2]) {
                                "interface" -> mapOf("implementation" to f[3])
                                "bean" -> if (f[3] == "-") emptyMap() else f[3].split(',').associate { it.substringBefore('=') to it.substringAfter('=') }
                                else -> error("unknown kind ${f[2]} in: $line")
                            }
                            require(classAttributes.keys.all { it in attributes }) { "a class attribute is not among the attributes in: $line" }
                            points[f[1]] = Point(attributes, classAttributes)
                        }
                        "group" -> groups.add(f[1])
                        "depends" -> dependencies.add(f[1])
                        "since" -> since[f[1]] = f[2]
                        else -> error("unknown entry ${f[0]} in: $line")
                    }
                }
                return PlatformCatalog(points, groups, dependencies, since)
            }
        }
    }

    private companion object {
        /** Attributes every extension may carry (the platform's ExtensionDescriptor). */
        val COMMON_EXTENSION_ATTRIBUTES = setOf("id", "order", "os")

        /**
         * The descriptor elements lean-ctx uses, by path from the root, with their
         * attributes, as the IntelliJ Platform's plugin configuration file defines them
         * (platform/core-impl/src/com/intellij/ide/plugins/XmlReader.kt reads them).
         */
        val SCHEMA: Map<String, Set<String>> = mapOf(
            "idea-plugin" to setOf("url", "package", "allow-bundled-update", "require-restart"),
            "idea-plugin/id" to emptySet(),
            "idea-plugin/name" to emptySet(),
            "idea-plugin/vendor" to setOf("url", "email"),
            "idea-plugin/description" to emptySet(),
            "idea-plugin/depends" to setOf("optional", "config-file"),
            "idea-plugin/extensionPoints" to emptySet(),
            "idea-plugin/extensionPoints/extensionPoint" to setOf("name", "qualifiedName", "interface", "beanClass", "dynamic", "area"),
            "idea-plugin/extensions" to setOf("defaultExtensionNs"),
            "idea-plugin/actions" to setOf("resource-bundle"),
            "idea-plugin/actions/group" to setOf("id", "text", "description", "popup", "icon", "class", "compact", "searchable"),
            "idea-plugin/actions/group/add-to-group" to setOf("group-id", "anchor", "relative-to-action"),
            "idea-plugin/actions/group/action" to setOf("id", "class", "text", "description", "icon"),
            "idea-plugin/actions/action" to setOf("id", "class", "text", "description", "icon"),
            "idea-plugin/actions/action/add-to-group" to setOf("group-id", "anchor", "relative-to-action"),
        )

        /** Compares IntelliJ build numbers component by component; a missing component is 0 (`242` is `242.0`). */
        fun compareBuilds(a: String, b: String): Int {
            val x = a.split('.').map(String::toInt)
            val y = b.split('.').map(String::toInt)
            for (i in 0 until maxOf(x.size, y.size)) {
                val c = x.getOrElse(i) { 0 }.compareTo(y.getOrElse(i) { 0 })
                if (c != 0) return c
            }
            return 0
        }

        fun parse(path: Path): Element =
            DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(path.toFile()).documentElement

        fun childElements(parent: Element): List<Element> {
            val nodes = parent.childNodes
            return (0 until nodes.length).map { nodes.item(it) }.filterIsInstance<Element>()
        }

        fun children(parent: Element, tag: String): List<Element> = childElements(parent).filter { it.tagName == tag }

        fun attributes(element: Element): List<String> =
            (0 until element.attributes.length).map { element.attributes.item(it).nodeName }

        /**
         * Visits [root] and its descendants with their schema path; an extension is visited
         * (an extension with the path `idea-plugin/extensions` plus a slash and a star), its
         * own children not at all.
         */
        fun walk(root: Element, visit: (Element, String) -> Unit) {
            fun go(element: Element, path: String) {
                visit(element, path)
                if (path.endsWith("/*")) return
                for (child in childElements(element)) {
                    go(child, if (path == "idea-plugin/extensions") "$path/*" else "$path/${child.tagName}")
                }
            }
            go(root, root.tagName)
        }
    }
}
