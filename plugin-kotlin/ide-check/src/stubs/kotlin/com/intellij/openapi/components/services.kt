// Stub of intellij-community platform/core-api/src/com/intellij/openapi/components/services.kt: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.components

inline fun <reified T : Any> ComponentManager.service(): T = error("stub")
