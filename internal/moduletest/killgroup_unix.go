//go:build unix

package moduletest

import (
	"os/exec"
	"syscall"
)

// killGroup starts cmd in a process group of its own and makes cancelling
// it kill the whole group: the go command leaves its compilers and test
// binaries running when only it is killed.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
