// Command toolexplorer lists, inspects and runs the tools registered in
// this program: the demo tools, and whatever else is linked in.
//
//	toolexplorer [--config FILE] [--tools FILE] COMMAND [flags] [arguments]
//
// The commands are list, describe NAME, run NAME, bench NAME, schemas and lint; "help"
// and --help on every command document their flags. Every command accepts
// --config FILE (or reads the file $TOOLEXPLORER_CONFIG names) and --tools
// FILE, and the scriptable ones print JSON with --json.
//
// Exit statuses, which scripts may rely on:
//
//	0  success
//	1  the call failed after it started (status error), a bench was
//	   interrupted, or lint found problems
//	2  usage error: bad flags or arguments, unreadable arguments file, bad config file
//	3  the call was refused before the tool ran (status denied), run was
//	   interrupted before the call, or no tool has that name
//
// The first SIGINT or SIGTERM cancels the command's context; the second
// ends the process the default way.
//
// The program is main.go (signals, the blank import of demotools), app.go
// (run, the testable whole: flags, config, dispatch), one file per command,
// and exit.go. It imports tooling and config, and is the only package that
// imports demotools.
package main
