// Command bundle assembles Reins.app from a built reins binary, for `make
// app` and the macOS workflow. It signs nothing; packaging/sign.sh does.
//
//	go run ./packaging/cmd/bundle -binary build/reins -version 0.1.42 -build 42 -out build
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/reins-app/reins/packaging"
)

func main() {
	var o packaging.BundleOptions
	flag.StringVar(&o.OutDir, "out", "build", "the `folder` Reins.app is made in")
	flag.StringVar(&o.Binary, "binary", "", "the reins `program` to put in the bundle")
	flag.StringVar(&o.Template, "plist", "Info.plist.tmpl", "the Info.plist `template`")
	flag.StringVar(&o.Version, "version", "", "CFBundleShortVersionString: up to three integers with periods")
	flag.StringVar(&o.Build, "build", "", "CFBundleVersion: up to three integers with periods")
	flag.StringVar(&o.Icon, "icon", "", "an optional .icns `file` for the bundle's icon")
	flag.Parse()
	if o.Binary == "" || o.Version == "" || o.Build == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: bundle -binary PROGRAM -version X.Y.Z -build N [-out DIR] [-plist Info.plist.tmpl] [-icon Reins.icns]")
		os.Exit(2)
	}
	app, err := packaging.Bundle(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bundle:", err)
		os.Exit(1)
	}
	fmt.Println(app)
}
