package sysfs

// CPUModel exposes cpuModel to the external tests.
var CPUModel = cpuModel
