package vocab

// App is an application on the desktop as the desktop reports it: the one
// in front, or owning a window. The deny list knows one by any of these
// names.
type App struct {
	Name  string `json:"name"`            // human name: WM_CLASS class, or localized app name
	Exe   string `json:"exe,omitempty"`   // executable path
	PID   int    `json:"pid,omitempty"`   //
	Class string `json:"class,omitempty"` // Linux: WM_CLASS instance and class, "instance.Class"
	ID    string `json:"id,omitempty"`    // macOS: bundle identifier
}
