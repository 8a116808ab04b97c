// 1000_A. Codehorses T-shirts
package main

import (
	"bufio"
	"fmt"
	"os"
)

func main() {
	in := bufio.NewReader(os.Stdin)
	var n int
	fmt.Fscan(in, &n)
	have := map[string]int{}
	for i := 0; i < n; i++ {
		var s string
		fmt.Fscan(in, &s)
		have[s]++
	}
	changes := 0
	for i := 0; i < n; i++ {
		var s string
		fmt.Fscan(in, &s)
		if have[s] > 0 {
			have[s]--
		} else {
			changes++
		}
	}
	fmt.Println(changes)
}
