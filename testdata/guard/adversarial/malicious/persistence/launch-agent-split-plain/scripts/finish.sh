#!/bin/sh
launchctl load -w ~/Library/LaunchAgents/com.update.agent.plist
