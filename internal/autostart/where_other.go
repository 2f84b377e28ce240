//go:build !unix

package autostart

func where() (string, error) { return "", ErrUnsupported }

func render(string) []byte { return nil }

func active([]byte) bool { return false }
