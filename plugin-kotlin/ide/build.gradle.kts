// Builds the plugin from this module's adapter code plus the IDE-free core's sources
// (../core/src/main/kotlin), so the HTTP server, DTOs, port file and UI logic that
// Maven tests are byte for byte what ships. The core's contract double (launcher/) is
// left out: it is a test tool, not part of the plugin.
import org.jetbrains.kotlin.gradle.dsl.KotlinVersion

plugins {
    id("org.jetbrains.kotlin.jvm") version "2.1.20"
    id("org.jetbrains.intellij.platform") version "2.5.0"
}

group = "com.leanctx"
version = "0.1.0"

repositories {
    mavenCentral()
    intellijPlatform {
        defaultRepositories()
    }
}

kotlin {
    // JVM 21, as the current IntelliJ Platform Plugin Template: 2024.2+ runs on JBR 21.
    // (The Maven compile check in ../ide-check runs on the Java 17 of the CI machine.)
    jvmToolchain(21)
    compilerOptions {
        // 2024.2 ships the Kotlin 1.9 stdlib; the core is compiled the same way by Maven.
        apiVersion.set(KotlinVersion.KOTLIN_1_9)
        languageVersion.set(KotlinVersion.KOTLIN_1_9)
    }
    sourceSets.named("main") {
        kotlin.srcDir("../core/src/main/kotlin")
        kotlin.exclude("com/leanctx/core/launcher/**")
    }
}

dependencies {
    implementation("com.google.code.gson:gson:2.13.2")
    intellijPlatform {
        intellijIdeaCommunity("2024.2.4")
        // Only the optional JVM module (leanctx-jvm.xml) uses these; plugin.xml itself
        // depends on com.intellij.modules.platform alone.
        bundledPlugin("com.intellij.java")
        bundledPlugin("org.jetbrains.kotlin")
    }
}

intellijPlatform {
    pluginConfiguration {
        version = project.version.toString()
        ideaVersion {
            // 2024.2.1: plugin.xml's supportsKotlinPluginMode exists from there on (2024.2.0 is 242.20224).
            sinceBuild = "242.21829"
            untilBuild = provider { null }
        }
    }
}
