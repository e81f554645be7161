package sysread_test

import (
	"fmt"

	"github.com/schedoctor/schedoctor/internal/sysread"
)

func ExampleFile() {
	// Under a sysroot a FIFO or a symlink to /dev/zero is refused at once.
	data, err := sysread.File("/", "/proc/self/limits", sysread.DefaultMax)
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = data
}
