import {
  CameraOutlined,
  CheckCircleOutlined,
  CloseOutlined,
  WarningOutlined,
} from '@ant-design/icons'
import { App, Button, Card, Image, Input, Space, Typography } from 'antd'
import { useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { uploadPhoto } from '../../../api/inspection/inspection'
import {
  ABNORMAL,
  NORMAL,
  type InspectRecord,
  type InspectTask,
  type Verdict,
} from '../../../api/inspection/types'
import {
  answeredCount,
  answerOf,
  checksOf,
  emptyFill,
  fillBody,
  fillProblems,
  fillReady,
  isImageFile,
  runSituationOf,
  withAnswer,
  type FillState,
} from '../logic'
import { usePhone } from '../hooks'

/** Touch targets of the phone form: at least 44 px (Apple HIG, WCAG 2.5.5). */
const touch = { minHeight: 48, fontSize: 16 }

function VerdictToggle({
  value,
  onChange,
  testId,
}: {
  value: Verdict | undefined
  onChange: (v: Verdict) => void
  testId: string
}) {
  const { t } = useTranslation()
  return (
    <div style={{ display: 'flex', gap: 8 }} role="group" data-testid={testId}>
      <Button
        block
        size="large"
        icon={<CheckCircleOutlined />}
        type={value === NORMAL ? 'primary' : 'default'}
        aria-pressed={value === NORMAL}
        data-testid="fill-normal"
        style={{
          ...touch,
          ...(value === NORMAL ? { background: '#52c41a', borderColor: '#52c41a' } : {}),
        }}
        onClick={() => onChange(NORMAL)}
      >
        {t('inspection.verdict.1')}
      </Button>
      <Button
        block
        size="large"
        icon={<WarningOutlined />}
        type={value === ABNORMAL ? 'primary' : 'default'}
        danger
        aria-pressed={value === ABNORMAL}
        data-testid="fill-abnormal"
        style={touch}
        onClick={() => onChange(ABNORMAL)}
      >
        {t('inspection.verdict.2')}
      </Button>
    </div>
  )
}

/**
 * Filling a task, built for a 390×844 phone first: one card per check with large Normal /
 * Abnormal toggles, a note (required when abnormal) and photos from the camera, then the run
 * situation and a remark; the submit bar stays at the bottom of the screen on phones.
 */
export default function FillForm({
  task,
  onSubmit,
}: {
  task: InspectTask
  onSubmit: (body: ReturnType<typeof fillBody>) => Promise<InspectRecord>
}) {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const phone = usePhone()
  const [state, setState] = useState<FillState>(emptyFill)
  const [shown, setShown] = useState(false)
  const [busy, setBusy] = useState(false)
  const [uploading, setUploading] = useState<Record<string, number>>({})
  const inputs = useRef<Record<string, HTMLInputElement | null>>({})
  const checks = checksOf(task)
  const problems = fillProblems(task, state)
  const run = runSituationOf(state)

  const addPhotos = async (key: string, files: FileList | null) => {
    for (const file of Array.from(files ?? [])) {
      if (!isImageFile(file)) {
        void message.error(t('inspection.message.notImage'))
        continue
      }
      setUploading((u) => ({ ...u, [key]: (u[key] ?? 0) + 1 }))
      try {
        const { link } = await uploadPhoto(file)
        setState((s) => withAnswer(s, key, { photos: [...answerOf(s, key).photos, link] }))
      } catch (error) {
        void message.error(
          error instanceof Error && error.message
            ? error.message
            : t('inspection.message.uploadFailed'),
        )
      } finally {
        setUploading((u) => ({ ...u, [key]: (u[key] ?? 1) - 1 }))
      }
    }
  }

  const submit = async () => {
    setShown(true)
    if (!fillReady(problems)) {
      const first = problems.unanswered[0] ?? problems.noteMissing[0]
      // (jsdom has no scrollIntoView)
      const card: Partial<Pick<HTMLElement, 'scrollIntoView'>> | null = document.querySelector(
        `[data-check-key="${first}"]`,
      )
      card?.scrollIntoView?.({ behavior: 'smooth', block: 'center' })
      void message.warning(
        problems.unanswered.length > 0
          ? t('inspection.rule.answerAll', { count: problems.unanswered.length })
          : t('inspection.rule.notesMissing', { count: problems.noteMissing.length }),
      )
      return
    }
    setBusy(true)
    try {
      await onSubmit(fillBody(task, state))
    } catch (error) {
      void message.error(error instanceof Error ? error.message : String(error))
    } finally {
      setBusy(false)
    }
  }

  const pending = Object.values(uploading).some((n) => n > 0)
  return (
    <div data-testid="fill-form" style={{ maxWidth: 720 }}>
      <Typography.Title level={5} style={{ marginTop: 0 }}>
        {t('inspection.title.fill')}
      </Typography.Title>
      {checks.length === 0 && (
        <Typography.Text type="secondary">{t('inspection.message.noItems')}</Typography.Text>
      )}
      <Space direction="vertical" size={12} style={{ width: '100%' }}>
        {checks.map(({ key, title, check }, index) => {
          const a = answerOf(state, key)
          const missingResult = shown && problems.unanswered.includes(key)
          const missingNote = shown && problems.noteMissing.includes(key)
          const header = index === 0 || checks[index - 1].title !== title ? title : null
          return (
            <div key={key}>
              {header && (
                <Typography.Text
                  strong
                  style={{ display: 'block', margin: '4px 0 6px' }}
                  data-testid="fill-item-title"
                >
                  {header}
                </Typography.Text>
              )}
              <Card
                size="small"
                data-testid="fill-check"
                data-check-key={key}
                data-result={a.result ?? ''}
                style={missingResult || missingNote ? { borderColor: '#ff4d4f' } : undefined}
              >
                <div style={{ fontSize: 16, marginBottom: 10, overflowWrap: 'anywhere' }}>
                  {check}
                </div>
                <VerdictToggle
                  testId="fill-verdict"
                  value={a.result}
                  onChange={(result) => setState((s) => withAnswer(s, key, { result }))}
                />
                {missingResult && (
                  <Typography.Text type="danger" style={{ display: 'block', marginTop: 6 }}>
                    {t('inspection.rule.answerAll', { count: 1 })}
                  </Typography.Text>
                )}
                {a.result === ABNORMAL && (
                  <div style={{ marginTop: 10 }}>
                    <Input.TextArea
                      data-testid="fill-note"
                      rows={2}
                      maxLength={500}
                      status={missingNote ? 'error' : undefined}
                      placeholder={t('inspection.placeholder.note')}
                      value={a.note}
                      style={{ fontSize: 16 }}
                      onChange={(e) => {
                        const note = e.target.value
                        setState((s) => withAnswer(s, key, { note }))
                      }}
                    />
                    {missingNote && (
                      <Typography.Text type="danger" data-testid="fill-note-error">
                        {t('inspection.rule.noteRequired')}
                      </Typography.Text>
                    )}
                  </div>
                )}
                {a.result !== undefined && (
                  <div style={{ marginTop: 10 }}>
                    <input
                      ref={(el) => {
                        inputs.current[key] = el
                      }}
                      type="file"
                      accept="image/*"
                      capture="environment"
                      multiple
                      hidden
                      data-testid="fill-photo-input"
                      onChange={(e) => {
                        const files = e.target.files
                        void addPhotos(key, files).finally(() => {
                          e.target.value = ''
                        })
                      }}
                    />
                    <Space wrap size={8}>
                      {a.photos.map((src) => (
                        <div key={src} style={{ position: 'relative' }} data-testid="fill-thumb">
                          <Image
                            src={src}
                            width={64}
                            height={64}
                            style={{ objectFit: 'cover', borderRadius: 6 }}
                          />
                          <Button
                            size="small"
                            shape="circle"
                            icon={<CloseOutlined />}
                            aria-label={t('inspection.action.removePhoto')}
                            style={{ position: 'absolute', top: -8, right: -8 }}
                            onClick={() =>
                              setState((s) =>
                                withAnswer(s, key, {
                                  photos: answerOf(s, key).photos.filter((p) => p !== src),
                                }),
                              )
                            }
                          />
                        </div>
                      ))}
                      <Button
                        icon={<CameraOutlined />}
                        data-testid="fill-photo"
                        loading={(uploading[key] ?? 0) > 0}
                        style={{ minHeight: 44, minWidth: 44 }}
                        onClick={() => inputs.current[key]?.click()}
                      >
                        {(uploading[key] ?? 0) > 0
                          ? t('inspection.message.uploading')
                          : t('inspection.action.addPhoto')}
                      </Button>
                    </Space>
                  </div>
                )}
              </Card>
            </div>
          )
        })}
        <Card size="small" data-testid="fill-summary">
          <Typography.Text strong style={{ display: 'block', marginBottom: 8 }}>
            {t('inspection.field.runSituation')}
          </Typography.Text>
          <div style={{ display: 'flex', gap: 8 }} data-testid="fill-run" data-value={run}>
            {([NORMAL, ABNORMAL] as const).map((v) => (
              <Button
                key={v}
                block
                size="large"
                danger={v === ABNORMAL}
                type={run === v ? 'primary' : 'default'}
                aria-pressed={run === v}
                data-testid={`fill-run-${v}`}
                style={{
                  ...touch,
                  ...(v === NORMAL && run === v
                    ? { background: '#52c41a', borderColor: '#52c41a' }
                    : {}),
                }}
                onClick={() => setState((s) => ({ ...s, runSituation: v }))}
              >
                {t(`inspection.verdict.${v}`)}
              </Button>
            ))}
          </div>
          <Typography.Text type="secondary" style={{ display: 'block', margin: '6px 0 12px' }}>
            {t('inspection.message.abnormalHint')}
          </Typography.Text>
          <Typography.Text strong style={{ display: 'block', marginBottom: 8 }}>
            {t('inspection.field.remark')}
          </Typography.Text>
          <Input.TextArea
            data-testid="fill-remark"
            rows={2}
            maxLength={500}
            style={{ fontSize: 16 }}
            placeholder={t('inspection.placeholder.noteOptional')}
            value={state.remark}
            onChange={(e) => {
              const remark = e.target.value
              setState((s) => ({ ...s, remark }))
            }}
          />
        </Card>
      </Space>
      <div
        data-testid="fill-submit-bar"
        style={{
          position: phone ? 'sticky' : 'static',
          bottom: 0,
          zIndex: 10,
          display: 'flex',
          alignItems: 'center',
          gap: 12,
          marginTop: 12,
          padding: phone ? '10px 12px calc(10px + env(safe-area-inset-bottom))' : 0,
          marginInline: phone ? -12 : 0,
          background: phone ? 'var(--ant-color-bg-container, #fff)' : undefined,
          boxShadow: phone ? '0 -2px 8px rgba(0, 0, 0, 0.12)' : undefined,
        }}
      >
        <Typography.Text
          type="secondary"
          data-testid="fill-progress"
          style={{ whiteSpace: 'nowrap' }}
        >
          {t('inspection.message.progress', {
            done: answeredCount(task, state),
            total: checks.length,
          })}
        </Typography.Text>
        <Button
          type="primary"
          size="large"
          block={phone}
          loading={busy}
          disabled={pending || checks.length === 0}
          data-testid="fill-submit"
          style={touch}
          onClick={() => void submit()}
        >
          {t('inspection.action.submit')}
        </Button>
      </div>
    </div>
  )
}
