package main

import "time"

func main() {
	for range time.Tick(time.Second) {
		if time.Now().IsZero() {
			return
		}
	}
}
