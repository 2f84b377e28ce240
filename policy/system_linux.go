package policy

func systemSource() Source { return rootFile{path: LinuxPath} }
