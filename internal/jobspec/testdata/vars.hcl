image = "nginx:file"
count = 3
