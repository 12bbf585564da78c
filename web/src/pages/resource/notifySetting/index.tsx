import { App, Button, Checkbox, Form, Select, Space, Switch, Typography } from 'antd'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import {
  bellless,
  getNotifySettings,
  leveledEvents,
  saveNotifySettings,
  type NotifySettings,
  type NotifySubscription,
} from '../../../api/resource/notify'
import type { MessageKey } from '../../../components/crud/types'

const levelKeys = [
  'notify.level.notice',
  'notify.level.minor',
  'notify.level.major',
  'notify.level.critical',
] as const satisfies readonly MessageKey[]

const queryKey = ['blade-resource', 'notify', 'setting']
const hours = Array.from({ length: 24 }, (_, h) => h)
const halfHours = Array.from({ length: 48 }, (_, i) => i * 30)
const hhmm = (minutes: number) =>
  `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`

/**
 * The caller's own notifications: for each event, bell / SMS / e-mail and (alarms) the lowest
 * level; quiet hours; the daily digest; the language of SMS and e-mail. One column on phones.
 */
export default function NotifySettingsForm() {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const queryClient = useQueryClient()
  const loaded = useQuery({ queryKey, queryFn: getNotifySettings })
  // The user's changes since the settings were read; none: what was read.
  const [edits, setEdits] = useState<NotifySettings | null>(null)
  const draft = edits ?? loaded.data ?? null
  const saving = useMutation({
    mutationFn: saveNotifySettings,
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey })
      void message.success(t('notify.saved'))
    },
  })
  if (!draft) return null

  const set = (patch: Partial<NotifySettings>) => setEdits({ ...draft, ...patch })
  const setEvent = (event: string, patch: Partial<NotifySubscription>) =>
    set({ events: draft.events.map((e) => (e.event === event ? { ...e, ...patch } : e)) })
  const levels = levelKeys.map((key, i) => ({ value: i + 1, label: t(key) }))

  return (
    <Form layout="vertical" style={{ maxWidth: 720 }} data-testid="notify-settings">
      <Typography.Paragraph type="secondary">{t('notify.intro')}</Typography.Paragraph>
      {draft.events.map((e) => (
        <div
          key={e.event}
          data-testid={`notify-event-${e.event}`}
          style={{
            display: 'flex',
            flexWrap: 'wrap',
            alignItems: 'center',
            gap: 8,
            padding: '8px 0',
            borderBottom: '1px solid rgba(5,5,5,0.06)',
          }}
        >
          <span style={{ flex: '1 1 160px', fontWeight: 500 }}>
            {t(`notify.event.${e.event}` as MessageKey)}
          </span>
          <Space wrap>
            <Checkbox
              checked={e.bell}
              disabled={bellless.includes(e.event)}
              onChange={(v) => setEvent(e.event, { bell: v.target.checked })}
            >
              {t('notify.channel.bell')}
            </Checkbox>
            <Checkbox
              checked={e.sms}
              data-testid={`notify-sms-${e.event}`}
              onChange={(v) => setEvent(e.event, { sms: v.target.checked })}
            >
              {t('notify.channel.sms')}
            </Checkbox>
            <Checkbox
              checked={e.email}
              onChange={(v) => setEvent(e.event, { email: v.target.checked })}
            >
              {t('notify.channel.email')}
            </Checkbox>
            {leveledEvents.includes(e.event) && (
              <Select
                size="small"
                style={{ minWidth: 110 }}
                aria-label={t('notify.minLevel')}
                value={e.minLevel}
                options={levels.map((l) => ({ ...l, label: `≥ ${l.label}` }))}
                onChange={(minLevel: number) => setEvent(e.event, { minLevel })}
              />
            )}
          </Space>
        </div>
      ))}
      <Form.Item label={t('notify.quiet')} style={{ marginTop: 16 }}>
        <Space wrap>
          <Switch
            checked={draft.quietEnabled === 1}
            onChange={(on) => set({ quietEnabled: on ? 1 : 0 })}
            aria-label={t('notify.quiet')}
          />
          <Select
            style={{ width: 100 }}
            aria-label={t('notify.quietStart')}
            disabled={draft.quietEnabled !== 1}
            value={draft.quietStart}
            options={halfHours.map((m) => ({ value: m, label: hhmm(m) }))}
            onChange={(quietStart: number) => set({ quietStart })}
          />
          <span>–</span>
          <Select
            style={{ width: 100 }}
            aria-label={t('notify.quietEnd')}
            disabled={draft.quietEnabled !== 1}
            value={draft.quietEnd}
            options={halfHours.map((m) => ({ value: m, label: hhmm(m) }))}
            onChange={(quietEnd: number) => set({ quietEnd })}
          />
        </Space>
        <Typography.Paragraph type="secondary" style={{ margin: '4px 0 0' }}>
          {t('notify.quietHelp')}
        </Typography.Paragraph>
      </Form.Item>
      <Form.Item label={t('notify.digest')}>
        <Space wrap>
          <Select
            style={{ minWidth: 150 }}
            aria-label={t('notify.digestBelow')}
            value={draft.digestBelow}
            options={[1, 2, 3, 4].map((value) => ({
              value,
              label:
                value === 1
                  ? t('notify.digestNone')
                  : levels
                      .slice(0, value - 1)
                      .map((l) => l.label)
                      .join(' / '),
            }))}
            onChange={(digestBelow: number) => set({ digestBelow })}
          />
          <Select
            style={{ width: 100 }}
            aria-label={t('notify.digestHour')}
            value={draft.digestHour}
            options={hours.map((h) => ({ value: h, label: hhmm(h * 60) }))}
            onChange={(digestHour: number) => set({ digestHour })}
          />
        </Space>
        <Typography.Paragraph type="secondary" style={{ margin: '4px 0 0' }}>
          {t('notify.digestHelp')}
        </Typography.Paragraph>
      </Form.Item>
      <Form.Item label={t('notify.lang')}>
        <Select
          style={{ width: 150 }}
          aria-label={t('notify.lang')}
          value={draft.lang}
          options={[
            { value: 'zh', label: t('language.zh') },
            { value: 'en', label: t('language.en') },
          ]}
          onChange={(lang: 'zh' | 'en') => set({ lang })}
        />
      </Form.Item>
      <Button
        type="primary"
        loading={saving.isPending}
        onClick={() => saving.mutate(draft)}
        data-testid="notify-save"
        style={{ minHeight: 44, minWidth: 120 }}
      >
        {t('notify.save')}
      </Button>
    </Form>
  )
}
