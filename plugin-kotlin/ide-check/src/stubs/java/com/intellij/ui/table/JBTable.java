// Stub of intellij-community platform/platform-api/src/com/intellij/ui/table/JBTable.java: the declarations lean-ctx's adapter uses, signatures only.
package com.intellij.ui.table;

import javax.swing.JTable;
import javax.swing.table.TableModel;

public class JBTable extends JTable {
  public JBTable(TableModel model) { throw new UnsupportedOperationException("stub"); }
}
