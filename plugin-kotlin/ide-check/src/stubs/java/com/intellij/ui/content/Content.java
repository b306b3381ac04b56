// Stub of intellij-community platform/platform-api/src/com/intellij/ui/content/Content.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.ui.content;

import com.intellij.openapi.Disposable;

public interface Content extends Disposable {
}
