import { DownloadOutlined } from '@ant-design/icons'
import { App, Button } from 'antd'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { downloadReport, type ReportRequest } from '../../../api/report/report'
import { shownByRequestClient } from '../../../api/request'
import { useSessionStore } from '../../../stores/session'

export interface ExportButtonProps {
  /** The menu code; the button shows only with the `<code>_export` permission. */
  code: string
  /**
   * A page without an export button permission (energy conservation): holding the page is
   * enough, as the hub checks it.
   */
  pageOnly?: boolean
  /** Exactly the query on screen (null: nothing to export yet). */
  request: ReportRequest | null
  testId: string
}

/** Downloads the workbook of the report on screen (same path + `/export`, same params). */
export default function ExportButton({ code, pageOnly, request, testId }: ExportButtonProps) {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const allowed = useSessionStore((s) => pageOnly || s.permission[`${code}_export`] === true)
  const [busy, setBusy] = useState(false)
  if (!allowed) return null
  const run = async () => {
    if (!request) return
    setBusy(true)
    try {
      await downloadReport(request, `${code}.xlsx`)
    } catch (error) {
      // A refusal by the hub was toasted by the request client; a network failure was not.
      if (!shownByRequestClient(error)) void message.error(t('report.common.exportFailed'))
    } finally {
      setBusy(false)
    }
  }
  return (
    <Button
      icon={<DownloadOutlined />}
      loading={busy}
      disabled={!request}
      onClick={() => void run()}
      data-testid={testId}
    >
      {t('report.common.export')}
    </Button>
  )
}
