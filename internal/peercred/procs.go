package peercred

// Process is one process as the OS lists it, read-only: its executable.
// What else a caller needs of a few of them (Parent, Name, Arg1) is read
// on demand: reading it for every process costs far more than the listing.
type Process struct {
	PID int
	// Exe is the path of the executable it runs; "" where there is none (a
	// kernel thread) or it cannot be read.
	Exe string
	// Open is the path that opens that executable's file: on Linux
	// /proc/PID/exe, which still opens a file since replaced or deleted.
	// "" with Exe.
	Open string
	// File is the executable file's identity, zero with Exe: the same
	// file, unchanged, has the same File.
	File FileID
	// Hidden: the executable could not be read for want of permission
	// (another user's process).
	Hidden bool
}

// FileID tells one file, as it is now, from another.
type FileID struct {
	Dev, Ino uint64
	Size     int64
	ModNano  int64
}

// Processes lists the processes running now: on Linux from /proc, on macOS
// from sysctl kern.proc.all. Processes that end while they are listed are
// left out.
func Processes() ([]Process, error) { return processes() }

// Name is the command name the kernel keeps for pid (Linux: at most 15
// bytes; macOS: 16), which a process may set itself.
func Name(pid int) (string, error) { return name(pid) }

// Arg1 is the first argument pid was started with after the program's
// name, "" when there is none.
func Arg1(pid int) (string, error) { return arg1(pid) }
