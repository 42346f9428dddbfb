# Touch gestures for adbwire's on-device dumper ('M' requests, README.md beside this file): each
# event becomes a MotionEvent injected through UiAutomation.injectInputEvent, as uiautomator's
# InteractionController injects its clicks and swipes. A class of its own so that a phone whose
# verifier rejected it would lose gestures (the host falls back to `input`), never dumps.
.class final Lcom/adbwire/Gesture;
.super Ljava/lang/Object;
.source "Gesture.smali"

# "at event N: <why>", the failure text the host reads N from: a gesture refused at event 0
# left no trace on the screen and can be sent again through `input`; a later one cannot.
.method static failAt(Ljava/io/DataOutputStream;ILjava/lang/String;)V
    .registers 5
    new-instance v0, Ljava/lang/StringBuilder;
    const-string v1, "at event "
    invoke-direct {v0, v1}, Ljava/lang/StringBuilder;-><init>(Ljava/lang/String;)V
    invoke-virtual {v0, p1}, Ljava/lang/StringBuilder;->append(I)Ljava/lang/StringBuilder;
    const-string v1, ": "
    invoke-virtual {v0, v1}, Ljava/lang/StringBuilder;->append(Ljava/lang/String;)Ljava/lang/StringBuilder;
    invoke-virtual {v0, p2}, Ljava/lang/StringBuilder;->append(Ljava/lang/String;)Ljava/lang/StringBuilder;
    invoke-virtual {v0}, Ljava/lang/StringBuilder;->toString()Ljava/lang/String;
    move-result-object v0
    invoke-static {p0, v0}, Lcom/adbwire/Dumper;->fail(Ljava/io/DataOutputStream;Ljava/lang/String;)V
    return-void
.end method

# ints: the event count, then per event its action (MotionEvent.ACTION_* with the pointer index
# in bits 8-15), its time in ms after the first, its pointer count k, then x and y of pointers
# 0..k-1 (pointer i has id i). Each event waits for its time (SystemClock.sleep), then
# MotionEvent.obtain(downTime, eventTime, action, k, properties, coords, metaState 0,
# buttonState 0, precision 1, 1, deviceId 0, edgeFlags 0, SOURCE_TOUCHSCREEN, flags 0) and
# injectInputEvent(event, sync = true). Replies ok with nothing, or failed through failAt.
.method static inject(Ljava/io/DataOutputStream;Landroid/app/UiAutomation;[I)V
    .registers 33
    # Low registers for the instructions that only reach v0-v15; v14-v29 are obtain()'s
    # arguments in order, filled where they are known.
    move-object/from16 v12, p0
    move-object/from16 v11, p1
    move-object/from16 v10, p2
    const/4 v0, 0x0
    :try_start
    invoke-static {}, Landroid/os/SystemClock;->uptimeMillis()J
    move-result-wide v14
    const/4 v1, 0x0
    aget v1, v10, v1
    const/4 v2, 0x1
    const/16 v22, 0x0
    const/16 v23, 0x0
    const/high16 v24, 0x3f800000
    const/high16 v25, 0x3f800000
    const/16 v26, 0x0
    const/16 v27, 0x0
    # InputDevice.SOURCE_TOUCHSCREEN
    const/16 v28, 0x1002
    const/16 v29, 0x0

    :next_event
    if-ge v0, v1, :done
    aget v18, v10, v2
    add-int/lit8 v2, v2, 0x1
    aget v3, v10, v2
    add-int/lit8 v2, v2, 0x1
    aget v7, v10, v2
    add-int/lit8 v2, v2, 0x1
    move/from16 v19, v7
    new-array v5, v7, [Landroid/view/MotionEvent$PointerProperties;
    move-object/from16 v20, v5
    new-array v5, v7, [Landroid/view/MotionEvent$PointerCoords;
    move-object/from16 v21, v5
    const/4 v4, 0x0
    :next_pointer
    if-ge v4, v7, :pointers_done
    # MotionEvent.PointerProperties: id, toolType = TOOL_TYPE_FINGER.
    new-instance v5, Landroid/view/MotionEvent$PointerProperties;
    invoke-direct {v5}, Landroid/view/MotionEvent$PointerProperties;-><init>()V
    iput v4, v5, Landroid/view/MotionEvent$PointerProperties;->id:I
    const/4 v6, 0x1
    iput v6, v5, Landroid/view/MotionEvent$PointerProperties;->toolType:I
    move-object/from16 v13, v20
    aput-object v5, v13, v4
    # MotionEvent.PointerCoords: x, y, pressure 1, size 1.
    new-instance v5, Landroid/view/MotionEvent$PointerCoords;
    invoke-direct {v5}, Landroid/view/MotionEvent$PointerCoords;-><init>()V
    aget v6, v10, v2
    add-int/lit8 v2, v2, 0x1
    int-to-float v6, v6
    iput v6, v5, Landroid/view/MotionEvent$PointerCoords;->x:F
    aget v6, v10, v2
    add-int/lit8 v2, v2, 0x1
    int-to-float v6, v6
    iput v6, v5, Landroid/view/MotionEvent$PointerCoords;->y:F
    const/high16 v6, 0x3f800000
    iput v6, v5, Landroid/view/MotionEvent$PointerCoords;->pressure:F
    iput v6, v5, Landroid/view/MotionEvent$PointerCoords;->size:F
    move-object/from16 v13, v21
    aput-object v5, v13, v4
    add-int/lit8 v4, v4, 0x1
    goto :next_pointer

    # eventTime = downTime + time; wait until then.
    :pointers_done
    int-to-long v8, v3
    add-long v16, v14, v8
    invoke-static {}, Landroid/os/SystemClock;->uptimeMillis()J
    move-result-wide v8
    sub-long v8, v16, v8
    const-wide/16 v4, 0x0
    cmp-long v6, v8, v4
    if-lez v6, :inject
    invoke-static {v8, v9}, Landroid/os/SystemClock;->sleep(J)V
    :inject
    invoke-static/range {v14 .. v29}, Landroid/view/MotionEvent;->obtain(JJII[Landroid/view/MotionEvent$PointerProperties;[Landroid/view/MotionEvent$PointerCoords;IIFFIIII)Landroid/view/MotionEvent;
    move-result-object v13
    const/4 v6, 0x1
    invoke-virtual {v11, v13, v6}, Landroid/app/UiAutomation;->injectInputEvent(Landroid/view/InputEvent;Z)Z
    move-result v6
    invoke-virtual {v13}, Landroid/view/MotionEvent;->recycle()V
    if-eqz v6, :refused
    add-int/lit8 v0, v0, 0x1
    goto :next_event

    :done
    const/4 v6, 0x0
    new-array v5, v6, [B
    invoke-static {v12, v6, v5}, Lcom/adbwire/Dumper;->reply(Ljava/io/DataOutputStream;I[B)V
    :try_end
    .catch Ljava/lang/Throwable; {:try_start .. :try_end} :failed
    return-void

    :refused
    const-string v5, "UiAutomation.injectInputEvent refused it"
    invoke-static {v12, v0, v5}, Lcom/adbwire/Gesture;->failAt(Ljava/io/DataOutputStream;ILjava/lang/String;)V
    return-void

    :failed
    move-exception v5
    invoke-static {v5}, Lcom/adbwire/Dumper;->describe(Ljava/lang/Throwable;)Ljava/lang/String;
    move-result-object v5
    invoke-static {v12, v0, v5}, Lcom/adbwire/Gesture;->failAt(Ljava/io/DataOutputStream;ILjava/lang/String;)V
    return-void
.end method
