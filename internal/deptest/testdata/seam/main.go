// Command seam calls the test seams from a program that is not a test, as a
// release would if one ever reached them; each call must panic.
package main

import (
	"fmt"
	"os"

	"github.com/reins-app/reins/approvals"
	"github.com/reins-app/reins/audit"
	"github.com/reins-app/reins/vocab"
)

func main() {
	calls := map[string]func(){
		"approvals.TestOnlyApproved": func() { approvals.TestOnlyApproved(vocab.Request{}) },
		"audit.TestOnlyTicket":       func() { audit.TestOnlyTicket(vocab.Act{Kind: vocab.Click}, audit.Landing{}) },
	}
	for _, name := range os.Args[1:] {
		call, ok := calls[name]
		if !ok {
			fmt.Println(name, "unknown")
			continue
		}
		func() {
			defer func() {
				if r := recover(); r != nil {
					fmt.Println(name, "panicked")
				}
			}()
			call()
			fmt.Println(name, "returned")
		}()
	}
}
