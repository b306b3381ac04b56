// Stub of intellij-community platform/util/src/com/intellij/openapi/diagnostic/logger.kt: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.openapi.diagnostic

inline fun <reified T : Any> logger(): Logger = error("stub")
