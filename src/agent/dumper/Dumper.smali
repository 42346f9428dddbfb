# adbwire's on-device dumper: `uiautomator dump` kept alive. It connects UiAutomation once,
# then answers requests read from stdin until stdin ends. Protocol: README.md beside this file.
.class public final Lcom/adbwire/Dumper;
.super Ljava/lang/Object;
.source "Dumper.smali"

# One reply frame: status byte, big-endian u32 length, payload; flushed at once because the
# host blocks on it. Package access (as fail and describe): Gesture uses them.
.method static reply(Ljava/io/DataOutputStream;I[B)V
    .registers 4
    invoke-virtual {p0, p1}, Ljava/io/DataOutputStream;->writeByte(I)V
    array-length v0, p2
    invoke-virtual {p0, v0}, Ljava/io/DataOutputStream;->writeInt(I)V
    invoke-virtual {p0, p2}, Ljava/io/DataOutputStream;->write([B)V
    invoke-virtual {p0}, Ljava/io/DataOutputStream;->flush()V
    return-void
.end method

.method static fail(Ljava/io/DataOutputStream;Ljava/lang/String;)V
    .registers 4
    const-string v0, "UTF-8"
    invoke-virtual {p1, v0}, Ljava/lang/String;->getBytes(Ljava/lang/String;)[B
    move-result-object v0
    const/4 v1, 0x1
    invoke-static {p0, v1, v0}, Lcom/adbwire/Dumper;->reply(Ljava/io/DataOutputStream;I[B)V
    return-void
.end method

# One dump request: DumpCommand.run() from uiautomator.jar, with the connect hoisted out.
.method private static dump(Ljava/io/DataOutputStream;Landroid/app/UiAutomation;II)V
    .registers 13
    # UiAutomation.waitForIdle(quiet, max): DumpCommand waits (1000, 10000); the host sets
    # the budget per request.
    :try_idle_start
    int-to-long v0, p2
    int-to-long v2, p3
    invoke-virtual {p1, v0, v1, v2, v3}, Landroid/app/UiAutomation;->waitForIdle(JJ)V
    :try_idle_end
    .catch Ljava/util/concurrent/TimeoutException; {:try_idle_start .. :try_idle_end} :not_idle

    # UiAutomation.getRootInActiveWindow(), null when the window is changing.
    invoke-virtual {p1}, Landroid/app/UiAutomation;->getRootInActiveWindow()Landroid/view/accessibility/AccessibilityNodeInfo;
    move-result-object v4
    if-nez v4, :have_root
    const-string v0, "ERROR: null root node returned by UiTestAutomationBridge."
    invoke-static {p0, v0}, Lcom/adbwire/Dumper;->fail(Ljava/io/DataOutputStream;Ljava/lang/String;)V
    return-void

    # DisplayManagerGlobal.getInstance().getRealDisplay(DEFAULT_DISPLAY): rotation and size
    # for the <hierarchy rotation> attribute and the visible-bounds clipping.
    :have_root
    invoke-static {}, Landroid/hardware/display/DisplayManagerGlobal;->getInstance()Landroid/hardware/display/DisplayManagerGlobal;
    move-result-object v0
    const/4 v1, 0x0
    invoke-virtual {v0, v1}, Landroid/hardware/display/DisplayManagerGlobal;->getRealDisplay(I)Landroid/view/Display;
    move-result-object v0
    invoke-virtual {v0}, Landroid/view/Display;->getRotation()I
    move-result v5
    new-instance v6, Landroid/graphics/Point;
    invoke-direct {v6}, Landroid/graphics/Point;-><init>()V
    invoke-virtual {v0, v6}, Landroid/view/Display;->getSize(Landroid/graphics/Point;)V
    iget v7, v6, Landroid/graphics/Point;->x:I
    iget v8, v6, Landroid/graphics/Point;->y:I

    # AccessibilityNodeInfoDumper.dumpWindowToFile(root, file, rotation, w, h): the platform's
    # dumper only writes a File, so it writes a private temporary one that is read back into a
    # ByteArrayOutputStream and deleted.
    const-string v0, "adbwire-dumper"
    const-string v1, ".xml"
    new-instance v2, Ljava/io/File;
    const-string v3, "/data/local/tmp"
    invoke-direct {v2, v3}, Ljava/io/File;-><init>(Ljava/lang/String;)V
    invoke-static {v0, v1, v2}, Ljava/io/File;->createTempFile(Ljava/lang/String;Ljava/lang/String;Ljava/io/File;)Ljava/io/File;
    move-result-object v2
    invoke-static {v4, v2, v5, v7, v8}, Lcom/android/uiautomator/core/AccessibilityNodeInfoDumper;->dumpWindowToFile(Landroid/view/accessibility/AccessibilityNodeInfo;Ljava/io/File;III)V
    new-instance v3, Ljava/io/FileInputStream;
    invoke-direct {v3, v2}, Ljava/io/FileInputStream;-><init>(Ljava/io/File;)V
    new-instance v6, Ljava/io/ByteArrayOutputStream;
    invoke-direct {v6}, Ljava/io/ByteArrayOutputStream;-><init>()V
    const/16 v0, 0x4000
    new-array v7, v0, [B
    :copy
    invoke-virtual {v3, v7}, Ljava/io/FileInputStream;->read([B)I
    move-result v8
    if-ltz v8, :copied
    const/4 v0, 0x0
    invoke-virtual {v6, v7, v0, v8}, Ljava/io/ByteArrayOutputStream;->write([BII)V
    goto :copy
    :copied
    invoke-virtual {v3}, Ljava/io/FileInputStream;->close()V
    invoke-virtual {v2}, Ljava/io/File;->delete()Z
    invoke-virtual {v6}, Ljava/io/ByteArrayOutputStream;->toByteArray()[B
    move-result-object v0
    const/4 v1, 0x0
    invoke-static {p0, v1, v0}, Lcom/adbwire/Dumper;->reply(Ljava/io/DataOutputStream;I[B)V
    return-void

    # The TimeoutException DumpCommand reports with this text.
    :not_idle
    const-string v0, "ERROR: could not get idle state."
    invoke-static {p0, v0}, Lcom/adbwire/Dumper;->fail(Ljava/io/DataOutputStream;Ljava/lang/String;)V
    return-void
.end method

# What a failure says: the exception behind a reflective call rather than the wrapper.
.method static describe(Ljava/lang/Throwable;)Ljava/lang/String;
    .registers 3
    :unwrap
    instance-of v0, p0, Ljava/lang/reflect/InvocationTargetException;
    if-eqz v0, :done
    invoke-virtual {p0}, Ljava/lang/Throwable;->getCause()Ljava/lang/Throwable;
    move-result-object v1
    if-eqz v1, :done
    move-object p0, v1
    goto :unwrap
    :done
    invoke-virtual {p0}, Ljava/lang/Object;->toString()Ljava/lang/String;
    move-result-object v0
    return-object v0
.end method

# IClipboard.<name>(…) through ServiceManager.getService("clipboard"), as a shell-uid tool
# calls the clipboard service (no Context exists in an app_process tool). Its parameters grew
# over Android versions (calling package; then attribution tag, user id, device id), so the
# overload is found by name and filled by type: the ClipData; "com.android.shell" for the
# first String and null for a later one (the attribution tag); 0 for each int (user 0, the
# default device). Any other parameter type rules that overload out.
.method private static clipboardCall(Ljava/lang/String;Landroid/content/ClipData;)Ljava/lang/Object;
    .registers 16
    # IBinder clipboard = ServiceManager.getService("clipboard")
    const-string v0, "android.os.ServiceManager"
    invoke-static {v0}, Ljava/lang/Class;->forName(Ljava/lang/String;)Ljava/lang/Class;
    move-result-object v0
    const-string v1, "getService"
    const/4 v2, 0x1
    const/4 v5, 0x0
    new-array v3, v2, [Ljava/lang/Class;
    const-class v4, Ljava/lang/String;
    aput-object v4, v3, v5
    invoke-virtual {v0, v1, v3}, Ljava/lang/Class;->getMethod(Ljava/lang/String;[Ljava/lang/Class;)Ljava/lang/reflect/Method;
    move-result-object v1
    new-array v3, v2, [Ljava/lang/Object;
    const-string v4, "clipboard"
    aput-object v4, v3, v5
    const/4 v4, 0x0
    invoke-virtual {v1, v4, v3}, Ljava/lang/reflect/Method;->invoke(Ljava/lang/Object;[Ljava/lang/Object;)Ljava/lang/Object;
    move-result-object v6
    # IClipboard service = IClipboard.Stub.asInterface(clipboard)
    const-string v0, "android.content.IClipboard$Stub"
    invoke-static {v0}, Ljava/lang/Class;->forName(Ljava/lang/String;)Ljava/lang/Class;
    move-result-object v0
    const-string v1, "asInterface"
    new-array v3, v2, [Ljava/lang/Class;
    const-class v7, Landroid/os/IBinder;
    aput-object v7, v3, v5
    invoke-virtual {v0, v1, v3}, Ljava/lang/Class;->getMethod(Ljava/lang/String;[Ljava/lang/Class;)Ljava/lang/reflect/Method;
    move-result-object v1
    new-array v3, v2, [Ljava/lang/Object;
    aput-object v6, v3, v5
    invoke-virtual {v1, v4, v3}, Ljava/lang/reflect/Method;->invoke(Ljava/lang/Object;[Ljava/lang/Object;)Ljava/lang/Object;
    move-result-object v6
    # The overload of `name` whose parameters are all ClipData, String or int.
    invoke-virtual {v6}, Ljava/lang/Object;->getClass()Ljava/lang/Class;
    move-result-object v0
    invoke-virtual {v0}, Ljava/lang/Class;->getMethods()[Ljava/lang/reflect/Method;
    move-result-object v7
    array-length v8, v7
    const/4 v9, 0x0
    :next_method
    if-ge v9, v8, :none
    aget-object v10, v7, v9
    add-int/lit8 v9, v9, 0x1
    invoke-virtual {v10}, Ljava/lang/reflect/Method;->getName()Ljava/lang/String;
    move-result-object v11
    invoke-virtual {p0, v11}, Ljava/lang/String;->equals(Ljava/lang/Object;)Z
    move-result v11
    if-eqz v11, :next_method
    invoke-virtual {v10}, Ljava/lang/reflect/Method;->getParameterTypes()[Ljava/lang/Class;
    move-result-object v11
    array-length v12, v11
    new-array v13, v12, [Ljava/lang/Object;
    const/4 v0, 0x0
    const/4 v1, 0x0
    :next_param
    if-ge v0, v12, :call
    aget-object v2, v11, v0
    const-class v3, Landroid/content/ClipData;
    if-ne v2, v3, :not_clip
    aput-object p1, v13, v0
    goto :param_done
    :not_clip
    const-class v3, Ljava/lang/String;
    if-ne v2, v3, :not_string
    if-nez v1, :param_done
    const-string v3, "com.android.shell"
    aput-object v3, v13, v0
    const/4 v1, 0x1
    goto :param_done
    :not_string
    sget-object v3, Ljava/lang/Integer;->TYPE:Ljava/lang/Class;
    if-ne v2, v3, :next_method
    const/4 v3, 0x0
    invoke-static {v3}, Ljava/lang/Integer;->valueOf(I)Ljava/lang/Integer;
    move-result-object v3
    aput-object v3, v13, v0
    :param_done
    add-int/lit8 v0, v0, 0x1
    goto :next_param
    :call
    invoke-virtual {v10, v6, v13}, Ljava/lang/reflect/Method;->invoke(Ljava/lang/Object;[Ljava/lang/Object;)Ljava/lang/Object;
    move-result-object v0
    return-object v0
    :none
    new-instance v0, Ljava/lang/NoSuchMethodException;
    new-instance v1, Ljava/lang/StringBuilder;
    const-string v2, "IClipboard has no usable "
    invoke-direct {v1, v2}, Ljava/lang/StringBuilder;-><init>(Ljava/lang/String;)V
    invoke-virtual {v1, p0}, Ljava/lang/StringBuilder;->append(Ljava/lang/String;)Ljava/lang/StringBuilder;
    invoke-virtual {v1}, Ljava/lang/StringBuilder;->toString()Ljava/lang/String;
    move-result-object v1
    invoke-direct {v0, v1}, Ljava/lang/NoSuchMethodException;-><init>(Ljava/lang/String;)V
    throw v0
.end method

# 'C' u32 length, UTF-8 text: the clipboard becomes that text (ClipData.newPlainText, then
# IClipboard.setPrimaryClip). Replies ok with nothing, or failed with the exception.
.method private static setClip(Ljava/io/DataOutputStream;Ljava/io/DataInputStream;)V
    .registers 6
    :try_start
    invoke-virtual {p1}, Ljava/io/DataInputStream;->readInt()I
    move-result v0
    new-array v1, v0, [B
    invoke-virtual {p1, v1}, Ljava/io/DataInputStream;->readFully([B)V
    new-instance v2, Ljava/lang/String;
    const-string v3, "UTF-8"
    invoke-direct {v2, v1, v3}, Ljava/lang/String;-><init>([BLjava/lang/String;)V
    const-string v3, "adbwire"
    invoke-static {v3, v2}, Landroid/content/ClipData;->newPlainText(Ljava/lang/CharSequence;Ljava/lang/CharSequence;)Landroid/content/ClipData;
    move-result-object v2
    const-string v3, "setPrimaryClip"
    invoke-static {v3, v2}, Lcom/adbwire/Dumper;->clipboardCall(Ljava/lang/String;Landroid/content/ClipData;)Ljava/lang/Object;
    const/4 v3, 0x0
    new-array v2, v3, [B
    invoke-static {p0, v3, v2}, Lcom/adbwire/Dumper;->reply(Ljava/io/DataOutputStream;I[B)V
    :try_end
    .catch Ljava/lang/Throwable; {:try_start .. :try_end} :failed
    return-void
    :failed
    move-exception v0
    invoke-static {v0}, Lcom/adbwire/Dumper;->describe(Ljava/lang/Throwable;)Ljava/lang/String;
    move-result-object v0
    invoke-static {p0, v0}, Lcom/adbwire/Dumper;->fail(Ljava/io/DataOutputStream;Ljava/lang/String;)V
    return-void
.end method

# 'G': the clipboard's text (IClipboard.getPrimaryClip, its first item's text), "" when it
# holds none. Replies ok with the UTF-8 text, or failed with the exception (Android 10+ may
# refuse a background reader).
.method private static getClip(Ljava/io/DataOutputStream;)V
    .registers 5
    :try_start
    const-string v0, "getPrimaryClip"
    const/4 v1, 0x0
    invoke-static {v0, v1}, Lcom/adbwire/Dumper;->clipboardCall(Ljava/lang/String;Landroid/content/ClipData;)Ljava/lang/Object;
    move-result-object v0
    const-string v2, ""
    if-eqz v0, :have_text
    check-cast v0, Landroid/content/ClipData;
    invoke-virtual {v0}, Landroid/content/ClipData;->getItemCount()I
    move-result v3
    if-eqz v3, :have_text
    const/4 v3, 0x0
    invoke-virtual {v0, v3}, Landroid/content/ClipData;->getItemAt(I)Landroid/content/ClipData$Item;
    move-result-object v0
    invoke-virtual {v0}, Landroid/content/ClipData$Item;->getText()Ljava/lang/CharSequence;
    move-result-object v0
    if-eqz v0, :have_text
    invoke-interface {v0}, Ljava/lang/CharSequence;->toString()Ljava/lang/String;
    move-result-object v2
    :have_text
    const-string v0, "UTF-8"
    invoke-virtual {v2, v0}, Ljava/lang/String;->getBytes(Ljava/lang/String;)[B
    move-result-object v0
    const/4 v1, 0x0
    invoke-static {p0, v1, v0}, Lcom/adbwire/Dumper;->reply(Ljava/io/DataOutputStream;I[B)V
    :try_end
    .catch Ljava/lang/Throwable; {:try_start .. :try_end} :failed
    return-void
    :failed
    move-exception v0
    invoke-static {v0}, Lcom/adbwire/Dumper;->describe(Ljava/lang/Throwable;)Ljava/lang/String;
    move-result-object v0
    invoke-static {p0, v0}, Lcom/adbwire/Dumper;->fail(Ljava/io/DataOutputStream;Ljava/lang/String;)V
    return-void
.end method

# The u32 count and that many big-endian ints after an 'M', read whole before the gesture runs
# so the stream stays in step with the host even when the gesture fails.
.method static readInts(Ljava/io/DataInputStream;)[I
    .registers 5
    invoke-virtual {p0}, Ljava/io/DataInputStream;->readInt()I
    move-result v0
    new-array v1, v0, [I
    const/4 v2, 0x0
    :next
    if-ge v2, v0, :done
    invoke-virtual {p0}, Ljava/io/DataInputStream;->readInt()I
    move-result v3
    aput v3, v1, v2
    add-int/lit8 v2, v2, 0x1
    goto :next
    :done
    return-object v1
.end method

.method public static main([Ljava/lang/String;)V
    .registers 9
    new-instance v0, Ljava/io/DataInputStream;
    sget-object v1, Ljava/lang/System;->in:Ljava/io/InputStream;
    invoke-direct {v0, v1}, Ljava/io/DataInputStream;-><init>(Ljava/io/InputStream;)V
    new-instance v1, Ljava/io/DataOutputStream;
    sget-object v2, Ljava/lang/System;->out:Ljava/io/PrintStream;
    invoke-direct {v1, v2}, Ljava/io/DataOutputStream;-><init>(Ljava/io/OutputStream;)V

    # UiAutomationShellWrapper: connect() once (it throws IllegalStateException "…already
    # registered" when another client holds UiAutomation), then getUiAutomation().
    :try_connect_start
    new-instance v2, Lcom/android/uiautomator/core/UiAutomationShellWrapper;
    invoke-direct {v2}, Lcom/android/uiautomator/core/UiAutomationShellWrapper;-><init>()V
    invoke-virtual {v2}, Lcom/android/uiautomator/core/UiAutomationShellWrapper;->connect()V

    # setCompressedLayoutHierarchy(false), as `uiautomator dump` without --compressed. Found
    # by reflection and skipped when absent: it is not part of every vendor's uiautomator.jar.
    :try_compress_start
    invoke-virtual {v2}, Ljava/lang/Object;->getClass()Ljava/lang/Class;
    move-result-object v3
    const-string v4, "setCompressedLayoutHierarchy"
    const/4 v5, 0x1
    new-array v6, v5, [Ljava/lang/Class;
    sget-object v7, Ljava/lang/Boolean;->TYPE:Ljava/lang/Class;
    const/4 v5, 0x0
    aput-object v7, v6, v5
    invoke-virtual {v3, v4, v6}, Ljava/lang/Class;->getMethod(Ljava/lang/String;[Ljava/lang/Class;)Ljava/lang/reflect/Method;
    move-result-object v3
    const/4 v5, 0x1
    new-array v6, v5, [Ljava/lang/Object;
    sget-object v7, Ljava/lang/Boolean;->FALSE:Ljava/lang/Boolean;
    const/4 v5, 0x0
    aput-object v7, v6, v5
    invoke-virtual {v3, v2, v6}, Ljava/lang/reflect/Method;->invoke(Ljava/lang/Object;[Ljava/lang/Object;)Ljava/lang/Object;
    :try_compress_end
    .catch Ljava/lang/NoSuchMethodException; {:try_compress_start .. :try_compress_end} :compress_done
    :compress_done
    invoke-virtual {v2}, Lcom/android/uiautomator/core/UiAutomationShellWrapper;->getUiAutomation()Landroid/app/UiAutomation;
    move-result-object v2
    :try_connect_end
    .catch Ljava/lang/Throwable; {:try_connect_start .. :try_connect_end} :connect_failed

    # Requests until stdin ends: 'P' ping, 'C'/'G' clipboard, 'L' app labels, 'M' gesture,
    # 'D' u32 quiet_ms u32 max_ms dump.
    :next
    :try_read_start
    invoke-virtual {v0}, Ljava/io/DataInputStream;->readByte()B
    move-result v3
    :try_read_end
    .catch Ljava/io/EOFException; {:try_read_start .. :try_read_end} :stdin_closed
    const/16 v4, 0x50
    if-ne v3, v4, :not_ping
    const-string v3, "adbwire-dumper 3"
    const-string v4, "UTF-8"
    invoke-virtual {v3, v4}, Ljava/lang/String;->getBytes(Ljava/lang/String;)[B
    move-result-object v3
    const/4 v4, 0x0
    invoke-static {v1, v4, v3}, Lcom/adbwire/Dumper;->reply(Ljava/io/DataOutputStream;I[B)V
    goto :next
    :not_ping
    const/16 v4, 0x43
    if-ne v3, v4, :not_set_clip
    invoke-static {v1, v0}, Lcom/adbwire/Dumper;->setClip(Ljava/io/DataOutputStream;Ljava/io/DataInputStream;)V
    goto :next
    :not_set_clip
    const/16 v4, 0x47
    if-ne v3, v4, :not_get_clip
    invoke-static {v1}, Lcom/adbwire/Dumper;->getClip(Ljava/io/DataOutputStream;)V
    goto :next
    :not_get_clip
    const/16 v4, 0x4c
    if-ne v3, v4, :not_labels
    :try_labels_start
    invoke-static {}, Lcom/adbwire/Labels;->list()[B
    move-result-object v3
    const/4 v4, 0x0
    invoke-static {v1, v4, v3}, Lcom/adbwire/Dumper;->reply(Ljava/io/DataOutputStream;I[B)V
    :try_labels_end
    .catch Ljava/lang/Throwable; {:try_labels_start .. :try_labels_end} :labels_failed
    goto :next
    :labels_failed
    move-exception v3
    invoke-static {v3}, Lcom/adbwire/Dumper;->describe(Ljava/lang/Throwable;)Ljava/lang/String;
    move-result-object v3
    invoke-static {v1, v3}, Lcom/adbwire/Dumper;->fail(Ljava/io/DataOutputStream;Ljava/lang/String;)V
    goto :next
    :not_labels
    const/16 v4, 0x4d
    if-ne v3, v4, :not_gesture
    invoke-static {v0}, Lcom/adbwire/Dumper;->readInts(Ljava/io/DataInputStream;)[I
    move-result-object v3
    :try_gesture_start
    invoke-static {v1, v2, v3}, Lcom/adbwire/Gesture;->inject(Ljava/io/DataOutputStream;Landroid/app/UiAutomation;[I)V
    :try_gesture_end
    # Gesture answers its own failures; what reaches here is a Gesture class this phone could
    # not load, before any event was injected.
    .catch Ljava/lang/Throwable; {:try_gesture_start .. :try_gesture_end} :gesture_failed
    goto :next
    :gesture_failed
    move-exception v3
    invoke-static {v3}, Lcom/adbwire/Dumper;->describe(Ljava/lang/Throwable;)Ljava/lang/String;
    move-result-object v3
    const-string v4, "at event 0: "
    invoke-virtual {v4, v3}, Ljava/lang/String;->concat(Ljava/lang/String;)Ljava/lang/String;
    move-result-object v3
    invoke-static {v1, v3}, Lcom/adbwire/Dumper;->fail(Ljava/io/DataOutputStream;Ljava/lang/String;)V
    goto :next
    :not_gesture
    const/16 v4, 0x44
    if-ne v3, v4, :unknown
    invoke-virtual {v0}, Ljava/io/DataInputStream;->readInt()I
    move-result v3
    invoke-virtual {v0}, Ljava/io/DataInputStream;->readInt()I
    move-result v4
    :try_dump_start
    invoke-static {v1, v2, v3, v4}, Lcom/adbwire/Dumper;->dump(Ljava/io/DataOutputStream;Landroid/app/UiAutomation;II)V
    :try_dump_end
    # Throwable, not Exception: an API that differs on this Android version fails with a
    # LinkageError (NoSuchMethodError), which must become a failed reply, not a dead process.
    .catch Ljava/lang/Throwable; {:try_dump_start .. :try_dump_end} :dump_failed
    goto :next
    :dump_failed
    move-exception v3
    invoke-virtual {v3}, Ljava/lang/Object;->toString()Ljava/lang/String;
    move-result-object v3
    invoke-static {v1, v3}, Lcom/adbwire/Dumper;->fail(Ljava/io/DataOutputStream;Ljava/lang/String;)V
    goto :next
    :unknown
    const-string v3, "adbwire-dumper: unknown request"
    invoke-static {v1, v3}, Lcom/adbwire/Dumper;->fail(Ljava/io/DataOutputStream;Ljava/lang/String;)V
    goto :next

    :connect_failed
    move-exception v3
    invoke-virtual {v3}, Ljava/lang/Object;->toString()Ljava/lang/String;
    move-result-object v3
    invoke-static {v1, v3}, Lcom/adbwire/Dumper;->fail(Ljava/io/DataOutputStream;Ljava/lang/String;)V

    # Ends the process even when UiAutomation's binder threads are still running.
    :stdin_closed
    const/4 v3, 0x0
    invoke-static {v3}, Ljava/lang/System;->exit(I)V
    return-void
.end method
