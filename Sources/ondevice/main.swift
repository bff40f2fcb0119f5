print("ondevice")
