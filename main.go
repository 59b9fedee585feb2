// Command agentbox is one binary that carries the whole built-in tool surface of a
// coding agent. See README.md and core's package documentation.
package main

func main() {}
