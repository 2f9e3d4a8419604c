/* SPDX-License-Identifier: MIT */
#ifndef KERNEL_VERSION_H
#define KERNEL_VERSION_H

#define BARETRACE_VERSION "0.1.0"

#endif
