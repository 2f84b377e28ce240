package desktop

import "strings"

// shownRoles maps AT-SPI role names to the ARIA words the tab snapshots use.
var shownRoles = map[string]string{
	"push button":         "button",
	"toggle button":       "button",
	"check box":           "checkbox",
	"radio button":        "radio",
	"text":                "textbox",
	"entry":               "textbox",
	"password text":       "textbox",
	"combo box":           "combobox",
	"menu item":           "menuitem",
	"check menu item":     "menuitemcheckbox",
	"radio menu item":     "menuitemradio",
	"page tab":            "tab",
	"page tab list":       "tablist",
	"link":                "link",
	"label":               "text",
	"frame":               "window",
	"window":              "window",
	"dialog":              "dialog",
	"list":                "list",
	"list box":            "listbox",
	"list item":           "listitem",
	"table cell":          "cell",
	"table row":           "row",
	"table column header": "columnheader",
	"column header":       "columnheader",
	"table row header":    "rowheader",
	"row header":          "rowheader",
	"slider":              "slider",
	"spin button":         "spinbutton",
	"scroll bar":          "scrollbar",
	"menu":                "menu",
	"popup menu":          "menu",
	"menu bar":            "menubar",
	"tool bar":            "toolbar",
	"tool tip":            "tooltip",
	"heading":             "heading",
	"image":               "img",
	"icon":                "img",
	"progress bar":        "progressbar",
	"status bar":          "status",
	"tree item":           "treeitem",
	"tree table":          "treegrid",
	"grouping":            "group",
	"document frame":      "document",
	"document web":        "document",
	"filler":              "generic",
	"panel":               "generic",
	"unknown":             "generic",
	"invalid":             "generic",
	"redundant object":    "generic",
	"scroll pane":         "generic",
	"viewport":            "generic",
	"section":             "generic",
	"layered pane":        "generic",
	"glass pane":          "generic",
	"root pane":           "generic",
}

// roleMax is the longest role name shown; a longer one is "generic".
const roleMax = 40

// Shown maps a platform role name to the role the snapshot shows: the tab
// snapshots' ARIA word where one fits ("push button" → "button"), "generic"
// for roles of pure layout, and otherwise the name with spaces as hyphens.
// The application reports its own role names, so a name that is not plain
// lowercase words is "generic" too: the role is printed unquoted.
func Shown(role string) string {
	role = strings.ToLower(strings.TrimSpace(role))
	if r, ok := shownRoles[role]; ok {
		return r
	}
	if role == "" || len(role) > roleMax {
		return "generic"
	}
	role = strings.ReplaceAll(role, " ", "-")
	for _, c := range role {
		if (c < 'a' || c > 'z') && c != '-' {
			return "generic"
		}
	}
	return role
}
