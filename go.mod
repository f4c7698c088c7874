module github.com/streamtap/streamtap

go 1.26
