#!/bin/sh
psql "$DATABASE_URL" -c "$SQL"
