package main

import "errors"

// runMCP is the agents' stdio door.
func runMCP(args []string) error {
	return errors.New("the MCP door is not built yet")
}
