package connect

// DiagnoseAttempt lets the node tests in connect_test feed diagnoseAttempt the driver's own
// lines.
var DiagnoseAttempt = diagnoseAttempt
