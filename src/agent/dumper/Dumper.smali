# adbwire's on-device dumper: `uiautomator dump` kept alive. It connects UiAutomation once,
# then answers requests read from stdin until stdin ends. Protocol: README.md beside this file.
.class public final Lcom/adbwire/Dumper;
.super Ljava/lang/Object;
.source "Dumper.smali"

# One reply frame: status byte, big-endian u32 length, payload; flushed at once because the
# host blocks on it.
.method private static reply(Ljava/io/DataOutputStream;I[B)V
    .registers 4
    invoke-virtual {p0, p1}, Ljava/io/DataOutputStream;->writeByte(I)V
    array-length v0, p2
    invoke-virtual {p0, v0}, Ljava/io/DataOutputStream;->writeInt(I)V
    invoke-virtual {p0, p2}, Ljava/io/DataOutputStream;->write([B)V
    invoke-virtual {p0}, Ljava/io/DataOutputStream;->flush()V
    return-void
.end method

.method private static fail(Ljava/io/DataOutputStream;Ljava/lang/String;)V
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

    # Requests until stdin ends: 'P' ping, 'D' u32 quiet_ms u32 max_ms dump.
    :next
    :try_read_start
    invoke-virtual {v0}, Ljava/io/DataInputStream;->readByte()B
    move-result v3
    :try_read_end
    .catch Ljava/io/EOFException; {:try_read_start .. :try_read_end} :stdin_closed
    const/16 v4, 0x50
    if-ne v3, v4, :not_ping
    const-string v3, "adbwire-dumper 1"
    const-string v4, "UTF-8"
    invoke-virtual {v3, v4}, Ljava/lang/String;->getBytes(Ljava/lang/String;)[B
    move-result-object v3
    const/4 v4, 0x0
    invoke-static {v1, v4, v3}, Lcom/adbwire/Dumper;->reply(Ljava/io/DataOutputStream;I[B)V
    goto :next
    :not_ping
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
