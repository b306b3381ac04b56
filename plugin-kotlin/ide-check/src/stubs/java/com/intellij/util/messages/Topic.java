// Stub of intellij-community platform/extensions/src/com/intellij/util/messages/Topic.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.util.messages;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.jetbrains.annotations.ApiStatus;
import org.jetbrains.annotations.NotNull;

@ApiStatus.NonExtendable
public class Topic<L> {
  public Topic(@NotNull Class<L> listenerClass) { throw new UnsupportedOperationException("stub"); }

  @Retention(RetentionPolicy.CLASS)
  @Target(ElementType.FIELD)
  public @interface ProjectLevel { }
}
