// Package logmon captures a task's stdout and stderr into rotated files
// named as Nomad names them: <alloc>/alloc/logs/<task>.<stream>.<N>, where
// N counts up from 0 and the highest N is the file being written.
//
// How output gets there: the driver appends to a hidden "live" file
// (<task>.<stream>.live in the log dir, a regular file) and a Tailer in the
// client copies what is new into a Rotator, then punches the copied range
// out of the live file (fallocate PUNCH_HOLE) so it takes no disk space.
// The offset it has copied up to is kept next to the live file.
//
// Why not FIFOs, which are the usual way: a FIFO needs a reader for as
// long as the task writes. The client deliberately leaves tasks running
// when it stops (and may be SIGKILLed); with a FIFO the next write of a
// task would then get SIGPIPE and kill it, or block it once the pipe
// buffer fills. A regular file keeps accepting writes while no client is
// running, and the next client resumes copying from the saved offset. The
// costs are a short polling delay before output reaches the rotated files
// and, after a crash, possibly a repeat of output copied after the last
// saved offset.
//
// A poll with nothing new costs one fstat; copies use pooled buffers (a
// buffer per poll starved clients with thousands of tasks). Rotation follows
// the task's logs { max_files, max_file_size }.
package logmon
