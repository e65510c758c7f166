package main

// Exit statuses. Scripts may rely on them; help.go documents them.
const (
	exitOK      = 0 // success: the call was ok, or there was nothing to report
	exitFailed  = 1 // the call failed (status error), lint found problems, or output could not be written
	exitUsage   = 2 // bad flags or arguments, an unreadable arguments file, a bad config file
	exitRefused = 3 // the call was refused before the tool ran (status denied), or no tool has that name
)

// exitFor maps the status of a call to the exit status of the command.
func exitFor(status string) int {
	switch status {
	case "ok":
		return exitOK
	case "denied":
		return exitRefused
	}
	return exitFailed
}
