/* csv-read.c: being written */
