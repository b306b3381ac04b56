// The IntelliJ adapter of the lean-ctx JetBrains plugin. Builds only where JetBrains'
// repositories are reachable (the IntelliJ Platform Gradle Plugin downloads the IDE);
// the IDE-free core it compiles in (../core) is built and tested with Maven instead.
rootProject.name = "leanctx-jetbrains"

pluginManagement {
    repositories {
        gradlePluginPortal()
        mavenCentral()
    }
}
