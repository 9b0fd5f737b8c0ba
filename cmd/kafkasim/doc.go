// Command kafkasim is the command line of the kafkasim testbed: a thin layer
// over packages scenarios, checkers and reports.
//
// It must hold no simulation or checking logic of its own. Bad input (flags,
// files) is reported with its file, line and reason and exit code 2.
package main
