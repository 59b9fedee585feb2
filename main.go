// Command agentbox is one binary that carries the whole built-in tool surface of a
// coding agent; see README.md. All the work is in core (the process boundary and shared
// machinery) and applets (one file per applet plus the table).
package main

import (
	"os"

	"github.com/agentbox/agentbox/applets"
	"github.com/agentbox/agentbox/core"
)

func main() { os.Exit(core.Main(os.Args, applets.All, core.OSEnv())) }
