//go:build !darwin

package hand

// InputMonitoringStatus: only macOS asks the person before a program may
// watch the keyboard and mouse; elsewhere the watch needs no permission.
func InputMonitoringStatus() (allowed bool, err error) { return true, nil }

// RequestInputMonitoring: see InputMonitoringStatus.
func RequestInputMonitoring() (bool, error) { return true, nil }
