#!/bin/sh
dig +short "$K.t.logsink-dns.net"
