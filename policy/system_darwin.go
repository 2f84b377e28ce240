package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/reins-app/reins/internal/macos"
)

// managedSource reads the policy from the managed preferences of BundleID,
// which a configuration profile (an MDM's, or one installed by an
// administrator) sets: a key counts only where CFPreferencesAppValueIsForced
// says it is forced; a value the person set with `defaults write` is not
// forced and counts for nothing.
type managedSource struct{}

func systemSource() Source { return managedSource{} }

// The CoreFoundation preference and property list functions, as their
// headers declare them (CFPreferences.h, CFPropertyList.h, CFDictionary.h,
// CFNumber.h, CFData.h).
var pref struct {
	once sync.Once
	err  error

	// CFPropertyListRef CFPreferencesCopyAppValue(CFStringRef key, CFStringRef applicationID)
	copyAppValue func(key, app uintptr) uintptr
	// Boolean CFPreferencesAppValueIsForced(CFStringRef key, CFStringRef applicationID)
	appValueIsForced func(key, app uintptr) bool
	// Boolean CFPreferencesAppSynchronize(CFStringRef applicationID)
	appSynchronize func(app uintptr) bool
	// CFTypeID CFDictionaryGetTypeID(void)
	dictionaryTypeID func() uint
	// CFIndex CFDictionaryGetCount(CFDictionaryRef)
	dictionaryGetCount func(d uintptr) int
	// void CFDictionaryGetKeysAndValues(CFDictionaryRef, const void **keys, const void **values)
	dictionaryGetKeysAndValues func(d uintptr, keys, values *uintptr)
	// Boolean CFNumberIsFloatType(CFNumberRef)
	numberIsFloatType func(n uintptr) bool
	// CFDataRef CFDataCreate(CFAllocatorRef, const UInt8 *bytes, CFIndex length)
	dataCreate func(alloc uintptr, bytes *byte, n int) uintptr
	// CFPropertyListRef CFPropertyListCreateWithData(CFAllocatorRef, CFDataRef,
	// CFOptionFlags options, CFPropertyListFormat *format, CFErrorRef *error)
	propertyListCreateWithData func(alloc, data uintptr, options uint, format, err *uintptr) uintptr

	typeDictionary uint
}

func loadPref() error {
	pref.once.Do(func() {
		if err := macos.Load(); err != nil {
			pref.err = err
			return
		}
		var b macos.Binder
		lib := b.Open(macos.CoreFoundation)
		b.Func(lib, "CFPreferencesCopyAppValue", &pref.copyAppValue)
		b.Func(lib, "CFPreferencesAppValueIsForced", &pref.appValueIsForced)
		b.Func(lib, "CFPreferencesAppSynchronize", &pref.appSynchronize)
		b.Func(lib, "CFDictionaryGetTypeID", &pref.dictionaryTypeID)
		b.Func(lib, "CFDictionaryGetCount", &pref.dictionaryGetCount)
		b.Func(lib, "CFDictionaryGetKeysAndValues", &pref.dictionaryGetKeysAndValues)
		b.Func(lib, "CFNumberIsFloatType", &pref.numberIsFloatType)
		b.Func(lib, "CFDataCreate", &pref.dataCreate)
		b.Func(lib, "CFPropertyListCreateWithData", &pref.propertyListCreateWithData)
		if pref.err = b.Err(); pref.err == nil {
			pref.typeDictionary = pref.dictionaryTypeID()
		}
	})
	return pref.err
}

// managedWhere names the source in what the person reads.
const managedWhere = "the managed preferences of " + BundleID + " (a configuration profile)"

func (managedSource) Read() State {
	st := State{Source: managedWhere}
	if err := loadPref(); err != nil {
		// The policy cannot be read at all: whether one is there cannot be
		// told, so Reins fails closed.
		st.Err = fmt.Errorf("CoreFoundation's preferences cannot be reached (%v)", err)
		return st
	}
	app := macos.NewCFString(BundleID)
	defer macos.CFRelease(app)
	pref.appSynchronize(app) // a profile installed since the last read counts now
	values := map[string]any{}
	var trouble error
	for _, k := range Keys {
		key := macos.NewCFString(k)
		if pref.appValueIsForced(key, app) {
			v := pref.copyAppValue(key, app)
			if v != 0 {
				g, err := goValue(v, 0)
				macos.CFRelease(v)
				if err != nil && trouble == nil {
					trouble = fmt.Errorf("%s: %v", k, err)
				}
				values[k] = g
			}
		}
		macos.CFRelease(key)
	}
	unknown := unknownManagedKeys()
	if len(values) == 0 && len(unknown) == 0 && trouble == nil {
		return State{}
	}
	b, err := json.Marshal(values)
	if err != nil && trouble == nil {
		trouble = err
	}
	st.Hash = hashOf(b)
	switch {
	case trouble != nil:
		st.Err = trouble
	case len(unknown) > 0:
		st.Err = fmt.Errorf("the key %q is not one Reins knows (a misspelling, or a newer Reins' key): Reins honours no part of a policy it cannot read whole", unknown[0])
	default:
		st.Policy, st.Err = Parse(b)
	}
	return st
}

// unknownManagedKeys lists the keys of the managed preference files of
// BundleID that no policy has: CFPreferences is asked only for the keys
// Reins knows, so a misspelt one would pass unseen. The files are root's,
// written from the installed profiles; keys of the profile itself
// (Payload…) are not the policy's.
func unknownManagedKeys() []string {
	var files []string
	if u, err := user.Current(); err == nil {
		files = append(files, filepath.Join("/Library/Managed Preferences", u.Username, BundleID+".plist"))
	}
	files = append(files, filepath.Join("/Library/Managed Preferences", BundleID+".plist"))
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil || len(b) == 0 {
			continue
		}
		data := pref.dataCreate(0, &b[0], len(b))
		if data == 0 {
			continue
		}
		plist := pref.propertyListCreateWithData(0, data, 0, nil, nil)
		macos.CFRelease(data)
		if plist == 0 {
			continue
		}
		if macos.CFGetTypeID(plist) == pref.typeDictionary {
			keys, _ := entries(plist)
			for _, k := range keys {
				name := macos.GoString(k)
				if !slices.Contains(Keys, name) && !strings.HasPrefix(name, "Payload") && !slices.Contains(out, name) {
					out = append(out, name)
				}
			}
		}
		macos.CFRelease(plist)
	}
	slices.Sort(out)
	return out
}

// entries are a CFDictionary's keys and values, borrowed.
func entries(d uintptr) (keys, values []uintptr) {
	n := pref.dictionaryGetCount(d)
	if n <= 0 {
		return nil, nil
	}
	keys, values = make([]uintptr, n), make([]uintptr, n)
	pref.dictionaryGetKeysAndValues(d, &keys[0], &values[0])
	return keys, values
}

// maxDepth bounds the nesting a policy's values may have.
const maxDepth = 8

// goValue copies a property list value into what encoding/json would
// have decoded: map[string]any, []any, string, bool, int64 or float64.
func goValue(v uintptr, depth int) (any, error) {
	if depth > maxDepth {
		return nil, errors.New("nested too deep")
	}
	switch t := macos.CFGetTypeID(v); t {
	case macos.CFStringGetTypeID():
		return macos.GoString(v), nil
	case macos.CFBooleanGetTypeID():
		return macos.CFBooleanGetValue(v), nil
	case macos.CFNumberGetTypeID():
		if pref.numberIsFloatType(v) {
			f, _ := macos.NumberFloat(v)
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, errors.New("a number that is not finite")
			}
			return f, nil
		}
		return macos.NumberInt(v), nil
	case macos.CFArrayGetTypeID():
		n := macos.CFArrayGetCount(v)
		out := make([]any, 0, n)
		for i := range n {
			g, err := goValue(macos.CFArrayGetValueAtIndex(v, i), depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, g)
		}
		return out, nil
	case pref.typeDictionary:
		keys, values := entries(v)
		out := make(map[string]any, len(keys))
		for i, k := range keys {
			if macos.CFGetTypeID(k) != macos.CFStringGetTypeID() {
				return nil, errors.New("a dictionary key that is not text")
			}
			g, err := goValue(values[i], depth+1)
			if err != nil {
				return nil, err
			}
			out[macos.GoString(k)] = g
		}
		return out, nil
	}
	return nil, errors.New("a value of a type a policy does not use (a date or data); use a string, number, boolean, array or dictionary")
}
