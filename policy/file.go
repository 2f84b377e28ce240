package policy

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// rootFile is a policy in a JSON file that only the owner, root, may have
// written: the file and its folder must belong to owner (0) and be
// writable by no one else, or it is not honoured, and fails closed.
type rootFile struct {
	path  string
	owner int // the uid the file and its folder must belong to; 0 but in tests
}

// Read reads the file: no file is no policy; a file that is there but
// cannot be honoured is a State with Err.
func (f rootFile) Read() State {
	st := State{Source: f.path}
	dir := filepath.Dir(f.path)
	di, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return State{}
	}
	if err != nil {
		st.Err = fmt.Errorf("its folder %s cannot be read (%v)", dir, err)
		return st
	}
	b, fi, err := readNoFollow(f.path, maxSize+1)
	if errors.Is(err, fs.ErrNotExist) {
		return State{}
	}
	if b != nil {
		st.Hash = hashOf(b)
	}
	switch {
	case err != nil:
		st.Err = fmt.Errorf("it cannot be read (%v)", err)
	case !di.IsDir():
		st.Err = fmt.Errorf("%s is not a folder (a link, say)", dir)
	case !fi.Mode().IsRegular():
		st.Err = errors.New("it is not a regular file (a link, say)")
	default:
		st.Err = f.checkOwner(dir, di, fi)
	}
	if st.Err != nil {
		return st
	}
	p, err := Parse(b)
	if err != nil {
		st.Err = err
		return st
	}
	st.Policy = p
	return st
}

// checkOwner is why the file in dir cannot have been written by the owner
// alone, or nil.
func (f rootFile) checkOwner(dir string, di, fi fs.FileInfo) error {
	for _, c := range []struct {
		what string
		info fs.FileInfo
	}{{dir, di}, {"the file", fi}} {
		uid, ok := ownerOf(c.info)
		switch {
		case !ok:
			return fmt.Errorf("the owner of %s cannot be told", c.what)
		case uid != f.owner:
			return fmt.Errorf("%s belongs to user %d, not to root, so another user could have written it", c.what, uid)
		case c.info.Mode().Perm()&0o022 != 0:
			return fmt.Errorf("%s can be written by users other than root (mode %04o)", c.what, c.info.Mode().Perm())
		}
	}
	return nil
}

// readNoFollow reads at most limit bytes of the file at path without
// following a link in its last element, and stats what it opened, so
// that the file checked is the file read.
func readNoFollow(path string, limit int64) ([]byte, fs.FileInfo, error) {
	fh, err := openNoFollow(path)
	if err != nil {
		return nil, nil, err
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fi, nil
	}
	b, err := io.ReadAll(io.LimitReader(fh, limit))
	if err != nil {
		return nil, fi, err
	}
	if int64(len(b)) >= limit {
		return b, fi, fmt.Errorf("it is larger than a policy may be (%d bytes)", maxSize)
	}
	return b, fi, nil
}
