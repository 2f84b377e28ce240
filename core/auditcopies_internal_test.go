package core

import (
	"testing"

	"github.com/reins-app/reins/audit"
)

// A cell a spreadsheet would run as a formula is written as text.
func TestCSVCellsFromPagesAreNotFormulas(t *testing.T) {
	rec := csvRecord(audit.Row{Seq: 1, TabTitle: `=HYPERLINK("https://evil.example","Click")`, TargetName: "+1 555", Detail: "@SUM(A1)", Origin: "https://shop.example"})
	want := map[int]string{8: `'=HYPERLINK("https://evil.example","Click")`, 16: "'+1 555", 21: "'@SUM(A1)", 9: "https://shop.example"}
	for i, w := range want {
		if rec[i] != w {
			t.Errorf("column %s = %q, want %q", exportColumns[i], rec[i], w)
		}
	}
	if len(rec) != len(exportColumns) {
		t.Fatalf("%d cells, %d columns", len(rec), len(exportColumns))
	}
}
