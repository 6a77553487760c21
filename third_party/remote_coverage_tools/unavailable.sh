#!/bin/sh
echo "remote_coverage_tools is an offline stand-in: coverage merging is not available in this build" >&2
exit 1
