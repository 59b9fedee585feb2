// Command agentbox is one binary that carries the whole built-in tool surface of a
// coding agent; see README.md and docs/architecture.md. The front end is cli, the
// contract every applet implements is core, and applets holds one file per applet plus
// the table.
package main

import (
	"os"

	"github.com/agentbox/agentbox/applets"
	"github.com/agentbox/agentbox/cli"
)

func main() { os.Exit(cli.Main(os.Args, applets.All, cli.OSEnv())) }
