// Package settings is the person's preferences: what each one is and which
// values it accepts ([Change]), how they last from one start to the next (a
// [Store]; [File] is settings.json in the data folder), and the desktop's
// login items, where "start at login" takes effect ([Login]).
//
// It decides nothing about agents and writes no audit row: core applies a
// change after its row is written, and the person's door is the only way to
// ask for one.
package settings
