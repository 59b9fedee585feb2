package proc

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"syscall"
)

// Starting and reaping a command without exec.Cmd.Start and Wait. The first
// os.StartProcess of a process probes pidfd support (pidfd_open, waitid,
// pidfd_send_signal and a throw-away vfork'd child), and Cmd.Wait parks an OS thread
// in waitid, so the runtime starts another thread to go on with. For agentbox, which
// runs one command per process, that was 0.1-0.2 ms and a thread to create and tear
// down on every call. startChild forks with syscall.ForkExec and asks the kernel for a
// pidfd; wait parks in the netpoller until the pidfd turns readable (the child
// exited) and then reaps with wait4. Without a pidfd (a kernel before 5.2) wait
// blocks in wait4 as Cmd.Wait would.
//
// An exec.Cmd still describes the command, so sandbox.Wrap can rewrite it; only its
// Path, Args, Env, Dir, SysProcAttr, Stdin, Stdout, Stderr and ExtraFiles are used,
// and the standard streams must be *os.File or nil (nil is /dev/null).

// child is a started process.
type child struct {
	pid   int
	pidfd *os.File // pollable; nil when the kernel gave none
}

// exited is how a child ended.
type exited struct {
	status syscall.WaitStatus
	err    error // reaping failed; status means nothing then
}

// startChild starts cmd and closes nothing of the caller's: the caller closes its copies
// of the child's ends of pipes, as after Cmd.Start.
func startChild(cmd *exec.Cmd) (*child, error) {
	var files []uintptr
	var keep []*os.File
	for i, s := range []any{cmd.Stdin, cmd.Stdout, cmd.Stderr} {
		f, err := streamFile(s, i == 0)
		if err != nil {
			return nil, err
		}
		if s == nil {
			defer f.Close()
		}
		keep = append(keep, f)
		files = append(files, f.Fd())
	}
	for _, f := range cmd.ExtraFiles {
		keep = append(keep, f)
		files = append(files, f.Fd())
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	var sys syscall.SysProcAttr
	if cmd.SysProcAttr != nil {
		sys = *cmd.SysProcAttr
	}
	pidfd := -1
	sys.PidFD = &pidfd
	pid, err := syscall.ForkExec(cmd.Path, cmd.Args, &syscall.ProcAttr{Dir: cmd.Dir, Env: env, Files: files, Sys: &sys})
	runtime.KeepAlive(keep)
	if err != nil {
		return nil, &os.PathError{Op: "fork/exec", Path: cmd.Path, Err: err}
	}
	c := &child{pid: pid}
	if pidfd >= 0 {
		if syscall.SetNonblock(pidfd, true) == nil {
			c.pidfd = os.NewFile(uintptr(pidfd), "pidfd")
		} else {
			syscall.Close(pidfd)
		}
	}
	return c, nil
}

// childPipe makes a pipe with one end for a child (the read end if childReads). That
// end is a plain blocking file that never meets the netpoller: os.Pipe registers both
// ends, and handing one to a child then costs two more fcntl calls. The end this
// process keeps is nonblocking and pollable.
func childPipe(childReads bool) (mine, childs *os.File, err error) {
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		return nil, nil, os.NewSyscallError("pipe2", err)
	}
	m, c := p[0], p[1]
	if childReads {
		m, c = c, m
	}
	if err := syscall.SetNonblock(m, true); err != nil {
		syscall.Close(m)
		syscall.Close(c)
		return nil, nil, os.NewSyscallError("fcntl", err)
	}
	return os.NewFile(uintptr(m), "|pipe"), os.NewFile(uintptr(c), "|pipe"), nil
}

// streamFile is the file behind one of cmd's standard streams.
func streamFile(s any, input bool) (*os.File, error) {
	switch f := s.(type) {
	case nil:
		mode := syscall.O_WRONLY
		if input {
			mode = syscall.O_RDONLY
		}
		// A plain blocking file: os.Open would try to register /dev/null with the
		// netpoller first.
		fd, err := syscall.Open(os.DevNull, mode|syscall.O_CLOEXEC, 0)
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: os.DevNull, Err: err}
		}
		return os.NewFile(uintptr(fd), os.DevNull), nil
	case *os.File:
		return f, nil
	}
	return nil, errors.New("proc: a command's standard streams must be files")
}

// wait reaps the child. Call it once.
func (c *child) wait() exited {
	if c.pidfd != nil {
		defer c.pidfd.Close()
		if rc, err := c.pidfd.SyscallConn(); err == nil {
			var e exited
			reaped := false
			err := rc.Read(func(uintptr) bool {
				var pid int
				for {
					pid, e.err = syscall.Wait4(c.pid, &e.status, syscall.WNOHANG, nil)
					if e.err != syscall.EINTR {
						break
					}
				}
				reaped = pid != 0 || e.err != nil
				return reaped
			})
			if reaped {
				return e
			}
			_ = err // the pidfd could not be polled: block below
		}
	}
	var e exited
	for {
		_, e.err = syscall.Wait4(c.pid, &e.status, 0, nil)
		if e.err != syscall.EINTR {
			return e
		}
	}
}
