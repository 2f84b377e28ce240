// Package packaging assembles Reins.app from a built reins binary. `make app`
// and the macOS workflow both run it through packaging/cmd/bundle; it needs
// no Mac, so its tests run the same assembly on Linux with a stand-in binary.
// Signing and the disk image are Apple's tools' work (sign.sh, dmg.sh).
package packaging

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"text/template"

	"github.com/reins-app/reins/extension"
)

// AppName is the bundle's folder name.
const AppName = "Reins.app"

// Executable is the program's name in Contents/MacOS, the plist's
// CFBundleExecutable.
const Executable = "reins"

// ExtensionDir is where the bundle carries the Chrome extension, under
// Contents/Resources: the files `reins extension DIR` writes.
const ExtensionDir = "extension"

// iconName is the icon's file under Contents/Resources, without ".icns" as
// CFBundleIconFile names it.
const iconName = "Reins"

// BundleOptions says what goes into Reins.app.
type BundleOptions struct {
	OutDir   string // required: the folder Reins.app is made in
	Binary   string // required: the reins program, usually universal (lipo)
	Template string // required: Info.plist.tmpl
	Version  string // required: CFBundleShortVersionString, such as 0.1.42
	Build    string // required: CFBundleVersion, such as 42
	Icon     string // optional: a .icns file; without it the bundle gets the one AppIcon draws
}

// dottedInts is the form macOS wants for both version keys: up to three
// non-negative integers separated by periods.
var dottedInts = regexp.MustCompile(`^(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*)){0,2}$`)

// Bundle makes OutDir/Reins.app afresh and returns its path: the plist, the
// program (executable), the icon (the one given, else the one AppIcon
// draws), and the extension folder.
func Bundle(o BundleOptions) (string, error) {
	for name, v := range map[string]string{"version": o.Version, "build": o.Build} {
		if !dottedInts.MatchString(v) {
			return "", fmt.Errorf("the %s %q is not up to three integers with periods (such as 0.1.42), which macOS needs", name, v)
		}
	}
	if o.Icon != "" && filepath.Ext(o.Icon) != ".icns" {
		return "", fmt.Errorf("the icon %s is not a .icns file; make one with iconutil", o.Icon)
	}
	plist, err := Render(o.Template, PlistFields{Version: o.Version, Build: o.Build, Icon: iconName})
	if err != nil {
		return "", err
	}
	app := filepath.Join(o.OutDir, AppName)
	if err := os.RemoveAll(app); err != nil {
		return "", err
	}
	contents := filepath.Join(app, "Contents")
	resources := filepath.Join(contents, "Resources")
	for _, d := range []string{filepath.Join(contents, "MacOS"), resources} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", err
		}
	}
	if err := os.WriteFile(filepath.Join(contents, "Info.plist"), plist, 0o644); err != nil {
		return "", err
	}
	// PkgInfo is what older Finder code reads for the type; cheap to keep.
	if err := os.WriteFile(filepath.Join(contents, "PkgInfo"), []byte("APPL????"), 0o644); err != nil {
		return "", err
	}
	if err := copyFile(o.Binary, filepath.Join(contents, "MacOS", Executable), 0o755); err != nil {
		return "", fmt.Errorf("copying the program: %w", err)
	}
	icon := filepath.Join(resources, iconName+".icns")
	if o.Icon != "" {
		if err := copyFile(o.Icon, icon, 0o644); err != nil {
			return "", fmt.Errorf("copying the icon: %w", err)
		}
	} else {
		b, err := ICNS()
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(icon, b, 0o644); err != nil {
			return "", fmt.Errorf("writing the icon: %w", err)
		}
	}
	if _, err := extension.WriteTo(filepath.Join(resources, ExtensionDir)); err != nil {
		return "", fmt.Errorf("writing the extension: %w", err)
	}
	return app, nil
}

// PlistFields fill Info.plist.tmpl.
type PlistFields struct {
	Version string // CFBundleShortVersionString
	Build   string // CFBundleVersion
	Icon    string // CFBundleIconFile; "" leaves the key out
}

// Render fills the template at path. Fields go in as given: Bundle checks
// them, and none may need XML escaping.
func Render(path string, f PlistFields) ([]byte, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	for _, v := range []string{f.Version, f.Build, f.Icon} {
		if strings.ContainsAny(v, `<>&"'`) {
			return nil, fmt.Errorf("%q cannot go into the plist unescaped", v)
		}
	}
	t, err := template.New(filepath.Base(path)).Option("missingkey=error").Parse(string(src))
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, f); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func copyFile(src, dst string, mode os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if st, err := in.Stat(); err == nil && st.IsDir() {
		return errors.New(src + " is a folder")
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	// OpenFile's mode passes through the umask; the program must be runnable.
	return os.Chmod(dst, mode)
}
