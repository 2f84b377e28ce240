// Package folderlock keeps one Reins per data folder. [Take] holds an
// exclusive lock on a file in the folder for as long as the process lives
// (the OS lets go of it when the process ends, however it ends) and writes
// down who holds it, so that a second start can say who is running. The
// lock decides, never the file: a record left by a Reins that was killed
// blocks no one.
package folderlock

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// File is the lock file's name in the data folder.
const File = "reins.lock"

// ErrHeld is wrapped by the error [Take] returns when another process holds
// the folder.
var ErrHeld = errors.New("the data folder is in use by another Reins")

// Holder is who holds a data folder's lock, as it wrote itself down.
type Holder struct {
	PID   int       `json:"pid"`
	Exe   string    `json:"exe,omitempty"`
	Since time.Time `json:"since"`
}

// String says the holder the way a person reads it: "pid 4121,
// /usr/local/bin/reins, since 14:02".
func (h Holder) String() string {
	if h.PID == 0 {
		return "it is still starting"
	}
	s := fmt.Sprintf("pid %d", h.PID)
	if h.Exe != "" {
		s += ", " + h.Exe
	}
	if !h.Since.IsZero() {
		s += ", since " + when(h.Since, time.Now())
	}
	return s
}

// when is t as a clock time, with the day when it is not today.
func when(t, now time.Time) string {
	t = t.Local()
	if y, m, d := t.Date(); y == now.Year() && m == now.Month() && d == now.Day() {
		return t.Format("15:04")
	}
	return t.Format("Jan 2 15:04")
}

// HeldError is the refusal of a second Reins on a folder: where, and who
// holds it.
type HeldError struct {
	Dir    string
	Holder Holder // the zero Holder when the record could not be read
}

func (e *HeldError) Error() string {
	return fmt.Sprintf("Reins is already running for %s (%s); quit it first, or set REINS_DATA_DIR to use another data folder", e.Dir, e.Holder)
}

func (e *HeldError) Unwrap() error { return ErrHeld }

// Lock is a held data folder.
type Lock struct {
	f   *os.File
	dir string
}

// Dir is the folder the lock holds.
func (l *Lock) Dir() string { return l.dir }

// heldWait is how long Take keeps trying a lock that is held: a `reins
// doctor` looking at the folder holds it, shared, for a moment, and a Reins
// that has just taken it needs that moment to write down who it is.
const heldWait = 250 * time.Millisecond

// Take locks dir for this process, creating the lock file if needed, and
// records this process in it. It returns a *HeldError when another process
// holds dir. The lock lasts until Release or the end of the process; it is
// not handed to child processes.
func Take(dir string) (*Lock, error) {
	path := filepath.Join(dir, File)
	f, err := openLockFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot open the lock file %s: %w", path, err)
	}
	deadline := time.Now().Add(heldWait)
	for {
		ok, err := tryExclusive(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("cannot lock %s: %w", path, err)
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			f.Close()
			h, _ := readHolder(path)
			return nil, &HeldError{Dir: dir, Holder: h}
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := record(f); err != nil {
		unlock(f)
		f.Close()
		return nil, fmt.Errorf("cannot write to the lock file %s: %w", path, err)
	}
	return &Lock{f: f, dir: dir}, nil
}

// record writes this process into the lock file, replacing what a previous
// holder left there.
func record(f *os.File) error {
	exe, err := os.Executable()
	if err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
	}
	b, err := json.Marshal(Holder{PID: os.Getpid(), Exe: exe, Since: time.Now()})
	if err != nil {
		return err
	}
	if err := f.Truncate(0); err != nil {
		return err
	}
	if _, err := f.WriteAt(append(b, '\n'), 0); err != nil {
		return err
	}
	return f.Sync()
}

// Release lets the folder go. The file stays: removing it would let a
// start that opened it just before lock a file no one else can see.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	f := l.f
	l.f = nil
	// Emptied first, so that a reader never takes this record for a live one.
	f.Truncate(0)
	unlock(f)
	return f.Close()
}

// Holding reports who holds dir's lock, without taking it for more than a
// moment: held is false when no process holds it (whatever the file says).
func Holding(dir string) (h Holder, held bool, err error) {
	path := filepath.Join(dir, File)
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return Holder{}, false, nil
	}
	if err != nil {
		return Holder{}, false, err
	}
	defer f.Close()
	free, err := tryShared(f)
	if err != nil {
		return Holder{}, false, err
	}
	if free {
		unlock(f)
		return Holder{}, false, nil
	}
	h, _ = readHolder(path)
	return h, true, nil
}

// readHolder reads the record a holder wrote. A holder that has only just
// taken the lock may not have written it yet: it is read again for a moment.
func readHolder(path string) (Holder, error) {
	var h Holder
	var err error
	deadline := time.Now().Add(heldWait)
	for {
		var b []byte
		if b, err = os.ReadFile(path); err == nil {
			if err = json.Unmarshal(b, &h); err == nil && h.PID != 0 {
				return h, nil
			}
		}
		if time.Now().After(deadline) {
			return Holder{}, err
		}
		time.Sleep(10 * time.Millisecond)
	}
}
