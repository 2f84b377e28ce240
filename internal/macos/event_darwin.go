package macos

import "sync"

// CGEvent fields (CGEventTypes.h) that tell who made an event.
const (
	// EventSourceUnixProcessID: the process that posted the event; 0 for
	// the HID system's own input, the person's hardware.
	EventSourceUnixProcessID = 41
	// EventSourceUserData: a number the poster may set; Reins marks its own.
	EventSourceUserData = 42
)

var eventFields struct {
	once sync.Once
	err  error
	// int64_t CGEventGetIntegerValueField(CGEventRef, CGEventField)
	get func(event uintptr, field uint32) int64
}

// EventField reads an integer field of a CGEventRef (a borrowed one, such
// as -[NSEvent CGEvent] returns).
func EventField(event uintptr, field uint32) (int64, error) {
	eventFields.once.Do(func() {
		var b Binder
		cg := b.Open(CoreGraphics)
		b.Func(cg, "CGEventGetIntegerValueField", &eventFields.get)
		eventFields.err = b.Err()
	})
	if eventFields.err != nil {
		return 0, eventFields.err
	}
	return eventFields.get(event, field), nil
}
